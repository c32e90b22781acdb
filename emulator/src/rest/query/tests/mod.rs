//! Parser tests; expected errors are PostgREST 12/13's (its doctests and live answers).

use super::*;
use crate::rest::error::RestError;

fn field(name: &str) -> SelectItem {
    SelectItem::Field {
        name: name.to_owned(),
        alias: None,
        json_path_or_cast: false,
    }
}

fn parse_error(result: Result<impl std::fmt::Debug, QueryError>) -> (String, String) {
    match result {
        Err(QueryError::Parse {
            message, details, ..
        }) => (message, details),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn defaults_when_the_query_is_empty() {
    let params = parse(None).unwrap();
    assert_eq!(params.select, [SelectItem::Star]);
    assert!(params.order.is_empty() && params.filters.is_empty());
    assert_eq!(
        (params.limit, params.offset, params.columns),
        (None, None, None)
    );
}

#[test]
fn supabase_js_read_parses() {
    let params = parse(Some("select=*&order=created_at.desc")).unwrap();
    assert_eq!(params.select, [SelectItem::Star]);
    assert_eq!(
        params.order,
        [OrderTerm::Field {
            name: "created_at".into(),
            json_path: false,
            direction: Some(Direction::Desc),
            nulls: None,
        }]
    );
}

#[test]
fn select_lists_aliases_quotes_and_whitespace() {
    let params = parse(Some("select=id,%20who:name%20,%22message%22")).unwrap();
    assert_eq!(
        params.select,
        [
            field("id"),
            SelectItem::Field {
                name: "name".into(),
                alias: Some("who".into()),
                json_path_or_cast: false,
            },
            field("message"),
        ]
    );
}

#[test]
fn select_embeds_casts_and_json_paths_are_recognised() {
    assert_eq!(
        parse_select("*,owner!inner(id,name)").unwrap()[1],
        SelectItem::Embed {
            relation: "owner".into()
        }
    );
    assert_eq!(
        parse_select("..owner(*)").unwrap()[0],
        SelectItem::Embed {
            relation: "owner".into()
        }
    );
    assert_eq!(
        parse_select("id::text").unwrap()[0],
        SelectItem::Field {
            name: "id".into(),
            alias: None,
            json_path_or_cast: true
        }
    );
    assert_eq!(
        parse_select("data->a->>0").unwrap()[0],
        SelectItem::Field {
            name: "data".into(),
            alias: None,
            json_path_or_cast: true
        }
    );
}

#[test]
fn select_errors_have_postgrest_positions() {
    let (message, details) = parse_error(parse_select("name;drop table geocache_logs"));
    assert_eq!(
        message,
        "\"failed to parse select parameter (name;drop table geocache_logs)\" (line 1, column 5)"
    );
    assert_eq!(
        details,
        "unexpected ';' expecting letter, digit, \"-\", \"!\", \"(\", \"->>\", \"->\", \"::\", \")\", \",\" or end of input"
    );
    let (message, details) = parse_error(parse_select("*!hint"));
    assert!(message.ends_with("(line 1, column 2)"));
    assert_eq!(
        details,
        "unexpected '!' expecting \")\", \",\" or end of input"
    );
    let (message, details) = parse_error(parse_select("id,"));
    assert!(message.ends_with("(line 1, column 4)"));
    assert!(details.starts_with("unexpected end of input"));
    let (message, _) = parse_error(parse_select(""));
    assert_eq!(
        message,
        "\"failed to parse select parameter ()\" (line 1, column 1)"
    );
}

#[test]
fn deeply_nested_embeddings_are_refused_not_recursed_into() {
    let nested = |depth: usize| format!("{}id{}", "a(".repeat(depth), ")".repeat(depth));
    assert!(parse_select(&nested(16)).is_ok());
    assert!(matches!(
        parse_select(&nested(17)),
        Err(QueryError::NotImplemented(_))
    ));
    // Far deeper than any stack would take when recursed into.
    assert!(parse_select(&nested(200_000)).is_err());
}

#[test]
fn long_lists_parse_in_linear_time() {
    // 200,000 items: quadratic work (copying the rest of the input per item) would take minutes.
    let long = vec!["id->a"; 200_000].join(",");
    let started = std::time::Instant::now();
    assert_eq!(parse_select(&long).unwrap().len(), 200_000);
    assert_eq!(parse_order(&long).unwrap().len(), 200_000);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn text_after_a_complete_select_list_is_refused() {
    let (message, details) = parse_error(parse_select("id) union select sql from sqlite_master"));
    assert!(message.ends_with("(line 1, column 3)"), "{message}");
    assert_eq!(details, "unexpected ')' expecting \",\" or end of input");
    assert!(parse_select("id,owner(name)").is_ok());
}

#[test]
fn select_quote_characters_never_escape_the_parser() {
    for hostile in ["name'--", "name\"", "\"name", "name)--", "name/*", "na'me"] {
        match parse_select(hostile) {
            Ok(items) => {
                // Whatever parses is only ever a name, checked against the table later.
                assert!(items
                    .iter()
                    .all(|item| matches!(item, SelectItem::Field { .. })));
            }
            Err(QueryError::Parse { .. }) => {}
            Err(other) => panic!("{hostile}: {other:?}"),
        }
    }
}

#[test]
fn order_terms_with_modifiers() {
    assert_eq!(
        parse_order("name.desc.nullslast, id").unwrap(),
        [
            OrderTerm::Field {
                name: "name".into(),
                json_path: false,
                direction: Some(Direction::Desc),
                nulls: Some(Nulls::Last),
            },
            OrderTerm::Field {
                name: "id".into(),
                json_path: false,
                direction: None,
                nulls: None,
            },
        ]
    );
    assert_eq!(
        parse_order("id.nullsfirst").unwrap()[0],
        OrderTerm::Field {
            name: "id".into(),
            json_path: false,
            direction: None,
            nulls: Some(Nulls::First),
        }
    );
    assert_eq!(
        parse_order("owner(name).desc").unwrap()[0],
        OrderTerm::Related {
            relation: "owner".into()
        }
    );
}

/// The cases in PostgREST's `pOrder` doctests.
#[test]
fn order_errors_match_postgrest_doctests() {
    let cases = [
        (
            "id.ac",
            4,
            "unexpected \"c\" expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"",
        ),
        (
            "id.descc",
            8,
            "unexpected 'c' expecting delimiter (.), \",\" or end of input",
        ),
        (
            "id.nulsfist",
            4,
            "unexpected \"n\" expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"",
        ),
        (
            "id.nullslasttt",
            13,
            "unexpected 't' expecting \",\" or end of input",
        ),
        (
            "id.smth34",
            4,
            "unexpected \"s\" expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"",
        ),
        (
            "id.asc.nlsfst",
            8,
            "unexpected \"l\" expecting \"nullsfirst\" or \"nullslast\"",
        ),
        (
            "id.asc.nullslasttt",
            17,
            "unexpected 't' expecting \",\" or end of input",
        ),
        (
            "id.asc.smth34",
            8,
            "unexpected \"s\" expecting \"nullsfirst\" or \"nullslast\"",
        ),
    ];
    for (input, column, expected_details) in cases {
        let (message, details) = parse_error(parse_order(input));
        assert_eq!(
            message,
            format!("\"failed to parse order ({input})\" (line 1, column {column})"),
            "{input}"
        );
        assert_eq!(details, expected_details, "{input}");
    }
}

#[test]
fn order_refuses_sql() {
    let (message, _) = parse_error(parse_order("created_at; drop table geocache_logs"));
    assert!(message.ends_with("(line 1, column 11)"), "{message}");
    let (message, _) = parse_error(parse_order("created_at.desc--"));
    assert!(message.ends_with("(line 1, column 16)"), "{message}");
}

#[test]
fn filters_with_each_operator() {
    let op = |value: &str| parse_filter("id", value).unwrap().operation;
    assert_eq!(op("eq.1"), Operation::Compare(CompareOp::Eq, "1".into()));
    assert_eq!(op("neq.1"), Operation::Compare(CompareOp::Neq, "1".into()));
    assert_eq!(op("gt.1"), Operation::Compare(CompareOp::Gt, "1".into()));
    assert_eq!(op("gte.1"), Operation::Compare(CompareOp::Gte, "1".into()));
    assert_eq!(op("lt.1"), Operation::Compare(CompareOp::Lt, "1".into()));
    assert_eq!(op("lte.1"), Operation::Compare(CompareOp::Lte, "1".into()));
    assert_eq!(op("isdistinct.1"), Operation::IsDistinct("1".into()));
    assert_eq!(op("is.NULL"), Operation::IsNull);
    assert_eq!(op("is.not_null"), Operation::IsNotNull);
    assert_eq!(
        op("in.(1, \"2,3\",4)"),
        Operation::In(vec!["1".into(), " \"2".into(), "3\"".into(), "4".into()])
    );
    assert_eq!(
        op("in.(\"2,3\",4)"),
        Operation::In(vec!["2,3".into(), "4".into()])
    );
    assert!(matches!(op("like.*a*"), Operation::Unsupported(_)));
    assert!(matches!(op("eq(any).{1,2}"), Operation::Unsupported(_)));
    assert!(matches!(op("fts(english).cat"), Operation::Unsupported(_)));
    assert!(matches!(op("is.true"), Operation::Unsupported(_)));
}

#[test]
fn filter_values_are_taken_verbatim() {
    let filter = parse_filter("name", "eq.O'Brien.; drop table x; --").unwrap();
    assert_eq!(
        filter.operation,
        Operation::Compare(CompareOp::Eq, "O'Brien.; drop table x; --".into())
    );
    assert!(!filter.negated);
    let filter = parse_filter("name", "not.eq.a").unwrap();
    assert!(filter.negated);
}

#[test]
fn filter_paths_and_quoted_names() {
    let filter = parse_filter("owner.name", "eq.a").unwrap();
    assert_eq!(filter.embed_path, ["owner"]);
    assert_eq!(filter.field, "name");
    assert_eq!(parse_filter("\"name\"", "eq.a").unwrap().field, "name");
    assert!(parse_filter("data->>a", "eq.1").unwrap().json_path);
}

/// PostgREST 13's doctests for `pRequestFilter`.
#[test]
fn filter_errors_match_postgrest() {
    let cases = [
        (
            "val",
            1,
            "unexpected \"v\" expecting \"not\" or operator (eq, gt, ...)",
        ),
        (
            "noop.0",
            1,
            "unexpected \"o\" expecting \"not\" or operator (eq, gt, ...)",
        ),
        (
            "not.val",
            5,
            "unexpected \"v\" expecting operator (eq, gt, ...)",
        ),
        (
            "",
            1,
            "unexpected end of input expecting \"not\" or operator (eq, gt, ...)",
        ),
        (
            "eq",
            3,
            "unexpected end of input expecting \"(\" or delimiter (.)",
        ),
        ("neq1", 4, "unexpected \"1\" expecting delimiter (.)"),
        ("not", 4, "unexpected end of input expecting delimiter (.)"),
        ("in.1,2", 4, "unexpected \"1\" expecting \"(\""),
        (
            "is.maybe",
            4,
            "unexpected \"m\" expecting isVal: (null, not_null, true, false, unknown)",
        ),
    ];
    for (value, column, expected_details) in cases {
        let (message, details) = parse_error(parse_filter("id", value));
        assert_eq!(
            message,
            format!("\"failed to parse filter ({value})\" (line 1, column {column})"),
            "{value}"
        );
        assert_eq!(details, expected_details, "{value}");
    }
}

#[test]
fn bare_keys_are_ignored_but_empty_values_are_filters() {
    assert!(parse(Some("name")).unwrap().filters.is_empty());
    assert!(matches!(
        parse(Some("name=")),
        Err(QueryError::Parse { .. })
    ));
}

#[test]
fn reserved_parameters_are_not_filters() {
    let params = parse(Some(
        "select=id&columns=name,message&on_conflict=id&apikey=k",
    ))
    .unwrap();
    assert!(params.filters.is_empty());
    assert_eq!(
        params.columns,
        Some(vec!["name".to_owned(), "message".to_owned()])
    );
    assert_eq!(
        parse(Some("columns=%22name%22,%22message%22"))
            .unwrap()
            .columns,
        Some(vec!["name".to_owned(), "message".to_owned()])
    );
}

#[test]
fn limit_and_offset() {
    let params = parse(Some("limit=10&offset=20&limit=5")).unwrap();
    assert_eq!((params.limit, params.offset), (Some(5), Some(20)));
    assert_eq!(parse(Some("limit=-1")), Err(QueryError::NegativeLimit));
    let (message, details) = parse_error(parse(Some("limit=ten")));
    assert_eq!(
        message,
        "\"failed to parse limit parameter (ten)\" (line 1, column 1)"
    );
    assert_eq!(details, "unexpected \"t\" expecting digit");
    let (message, _) = parse_error(parse(Some("offset=1;--")));
    assert!(message.ends_with("(line 1, column 2)"));
}

#[test]
fn embedded_modifiers_are_refused() {
    for key in ["owner.order", "owner.or", "owner.not.and", "not.owner.or"] {
        assert_eq!(
            parse(Some(&format!("{key}=(id.eq.1)"))),
            Err(QueryError::NotEmbedded("owner".into())),
            "{key}"
        );
    }
}

#[test]
fn parse_order_of_errors_follows_postgrest() {
    // order is parsed before select, select before filters.
    let (message, _) = parse_error(parse(Some("id=bad&select=;&order=x.y")));
    assert!(message.starts_with("\"failed to parse order"));
    let (message, _) = parse_error(parse(Some("id=bad&select=;")));
    assert!(message.starts_with("\"failed to parse select"));
}

#[test]
fn unicode_positions_count_characters() {
    let (message, details) = parse_error(parse_filter("name", "ééé"));
    assert!(message.ends_with("(line 1, column 1)"));
    assert_eq!(
        details,
        "unexpected \"\\233\" expecting \"not\" or operator (eq, gt, ...)"
    );
    assert_eq!(
        parse_filter("name", "eq.ünïcødé 🎉").unwrap().operation,
        Operation::Compare(CompareOp::Eq, "ünïcødé 🎉".into())
    );
}

#[test]
fn text_after_a_filter_path_or_column_list_is_refused() {
    let (message, details) = parse_error(parse_filter("name;drop", "eq.1"));
    assert_eq!(
        message,
        "\"failed to parse tree path (name;drop)\" (line 1, column 5)"
    );
    assert!(details.starts_with("unexpected ';'"), "{details}");
    let (message, _) = parse_error(parse_columns("name,message)--"));
    assert!(message.ends_with("(line 1, column 13)"), "{message}");
}

mod logic_trees;
