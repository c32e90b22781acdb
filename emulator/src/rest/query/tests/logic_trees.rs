//! Logic-tree parser tests; expected errors are PostgREST's doctests for `pLogicTree`.

use super::*;
use crate::rest::query::logic::parse_tree;

fn compare(field: &str, op: CompareOp, value: &str) -> LogicTree {
    LogicTree::Filter(Filter {
        field: field.to_owned(),
        embed_path: Vec::new(),
        json_path: false,
        negated: false,
        operation: Operation::Compare(op, value.to_owned()),
    })
}

fn expression(operator: LogicOperator, operands: Vec<LogicTree>) -> LogicTree {
    LogicTree::Expression {
        negated: false,
        operator,
        operands,
    }
}

fn negate(tree: LogicTree) -> LogicTree {
    match tree {
        LogicTree::Filter(filter) => LogicTree::Filter(Filter {
            negated: true,
            ..filter
        }),
        LogicTree::Expression {
            operator, operands, ..
        } => LogicTree::Expression {
            negated: true,
            operator,
            operands,
        },
    }
}

fn tree(operator: &str, value: &str) -> LogicTree {
    parse_tree(operator, value).unwrap()
}

/// The values a single `name=eq.` filter inside `or=(...)` reads.
fn value_of(raw: &str) -> String {
    match tree("or", &format!("(name.eq.{raw})")) {
        LogicTree::Expression { operands, .. } => match &operands[..] {
            [LogicTree::Filter(Filter {
                operation: Operation::Compare(CompareOp::Eq, value),
                ..
            })] => value.clone(),
            other => panic!("{raw}: {other:?}"),
        },
        other => panic!("{raw}: {other:?}"),
    }
}

const CURSOR: &str = "2026-11-22T10:00:00.123456+00:00";

fn keyset_tree() -> LogicTree {
    expression(
        LogicOperator::Or,
        vec![
            compare("created_at", CompareOp::Lt, CURSOR),
            expression(
                LogicOperator::And,
                vec![
                    compare("created_at", CompareOp::Eq, CURSOR),
                    compare("id", CompareOp::Lt, "42"),
                ],
            ),
        ],
    )
}

#[test]
fn the_keyset_cursor_parses_with_its_quoted_timestamps() {
    assert_eq!(
        tree(
            "or",
            &format!("(created_at.lt.\"{CURSOR}\",and(created_at.eq.\"{CURSOR}\",id.lt.42))")
        ),
        keyset_tree()
    );
}

#[test]
fn the_keyset_cursor_parses_from_the_encoded_query_string() {
    // As URLSearchParams encodes supabase-js's `.or(...)`, and as the paged client sends it.
    let params = parse(Some(
        "select=*&order=created_at.desc,id.desc&limit=1000\
         &or=%28created_at.lt.%222026-11-22T10%3A00%3A00.123456%2B00%3A00%22%2C\
         and%28created_at.eq.%222026-11-22T10%3A00%3A00.123456%2B00%3A00%22%2Cid.lt.42%29%29",
    ))
    .unwrap();
    assert_eq!(params.logic, [keyset_tree()]);
    assert!(params.filters.is_empty());
    assert_eq!(params.limit, Some(1000));
}

#[test]
fn every_logic_parameter_is_kept_and_keys_carry_negation() {
    let params = parse(Some(
        "or=(id.eq.1,id.eq.2)&name=eq.a&or=(id.gt.0)&and=(id.lt.9)&not.or=(id.eq.3)&not.and=(id.eq.4)",
    ))
    .unwrap();
    assert_eq!(
        params.logic,
        [
            expression(
                LogicOperator::Or,
                vec![
                    compare("id", CompareOp::Eq, "1"),
                    compare("id", CompareOp::Eq, "2")
                ]
            ),
            expression(LogicOperator::Or, vec![compare("id", CompareOp::Gt, "0")]),
            expression(LogicOperator::And, vec![compare("id", CompareOp::Lt, "9")]),
            negate(expression(
                LogicOperator::Or,
                vec![compare("id", CompareOp::Eq, "3")]
            )),
            negate(expression(
                LogicOperator::And,
                vec![compare("id", CompareOp::Eq, "4")]
            )),
        ]
    );
    assert_eq!(params.filters.len(), 1);
}

#[test]
fn trees_nest_and_negate_inside() {
    assert_eq!(
        tree(
            "and",
            "(or(id.eq.1,not.and(id.gt.2,name.not.eq.b)),name.is.null,id.in.(3,\"4,5\"))"
        ),
        expression(
            LogicOperator::And,
            vec![
                expression(
                    LogicOperator::Or,
                    vec![
                        compare("id", CompareOp::Eq, "1"),
                        negate(expression(
                            LogicOperator::And,
                            vec![
                                compare("id", CompareOp::Gt, "2"),
                                negate(compare("name", CompareOp::Eq, "b")),
                            ]
                        )),
                    ]
                ),
                LogicTree::Filter(Filter {
                    field: "name".into(),
                    embed_path: Vec::new(),
                    json_path: false,
                    negated: false,
                    operation: Operation::IsNull,
                }),
                LogicTree::Filter(Filter {
                    field: "id".into(),
                    embed_path: Vec::new(),
                    json_path: false,
                    negated: false,
                    operation: Operation::In(vec!["3".into(), "4,5".into()]),
                }),
            ]
        )
    );
}

#[test]
fn spaces_around_operands_are_allowed() {
    assert_eq!(
        tree("or", "( id.eq.1 ,\tname.eq.x )"),
        expression(
            LogicOperator::Or,
            vec![
                compare("id", CompareOp::Eq, "1 "),
                compare("name", CompareOp::Eq, "x "),
            ]
        )
    );
}

#[test]
fn quoted_values_hold_reserved_characters_and_backslash_escapes() {
    assert_eq!(value_of("\"a,b.c:d(e)\""), "a,b.c:d(e)");
    assert_eq!(value_of("\"say \\\"hi\\\"\""), "say \"hi\"");
    assert_eq!(value_of("\"back\\\\slash\""), "back\\slash");
    assert_eq!(value_of("\"\\x\""), "x");
    assert_eq!(value_of("\"\""), "");
    // Unquoted, `.` and `:` need no quotes; only `,` and `)` end a value.
    assert_eq!(value_of("a.b:c"), "a.b:c");
    // A quote not followed by `,` or `)` is not a quoted value: the text is taken as it is.
    assert_eq!(value_of("\"a\"b"), "\"a\"b");
    assert_eq!(value_of("{1,2}"), "{1,2}");
}

#[test]
fn unsupported_operators_inside_trees_still_parse_their_values() {
    let parsed = tree("or", "(name.like.*a*,id.eq(any).{1,2},id.eq.3)");
    let LogicTree::Expression { operands, .. } = parsed else {
        panic!("{parsed:?}")
    };
    assert!(matches!(
        operands[0],
        LogicTree::Filter(Filter {
            operation: Operation::Unsupported(_),
            ..
        })
    ));
    assert!(matches!(
        operands[1],
        LogicTree::Filter(Filter {
            operation: Operation::Unsupported(_),
            ..
        })
    ));
    assert_eq!(operands[2], compare("id", CompareOp::Eq, "3"));
}

/// PostgREST's doctests for `pLogicTree`, and the mistakes a hand-written cursor makes.
#[test]
fn malformed_trees_fail_like_postgrest() {
    let cases = [
        (
            "or",
            "()",
            4,
            "unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)",
        ),
        (
            "or",
            "(id.in.1,2,id.eq.3)",
            10,
            "unexpected \"1\" expecting \"(\"",
        ),
        ("or", ")(", 3, "unexpected \")\" expecting \"(\""),
        (
            "and",
            "(ord(id.eq.1,id.eq.1),id.eq.2)",
            7,
            "unexpected \"d\" expecting \"(\"",
        ),
        (
            "or",
            "(id.eq.1,not.xor(id.eq.2,id.eq.3))",
            16,
            "unexpected \"x\" expecting logic operator (and, or)",
        ),
        (
            "or",
            "(id.eq.1",
            11,
            "unexpected end of input expecting \",\" or \")\"",
        ),
        (
            "or",
            "(id.in.(1,2)x)",
            15,
            "unexpected \"x\" expecting \",\" or \")\"",
        ),
        (
            "or",
            "(id.eq.1)x",
            12,
            "unexpected 'x' expecting end of input",
        ),
        (
            "not.or",
            "(id)",
            10,
            "unexpected \")\" expecting letter, digit, \"-\", \"->>\", \"->\" or delimiter (.)",
        ),
        (
            "or",
            "(id.eq)",
            9,
            "unexpected \")\" expecting \"(\" or delimiter (.)",
        ),
    ];
    for (operator, value, column, expected_details) in cases {
        let (message, details) = parse_error(parse_tree(operator, value));
        assert_eq!(
            message,
            format!("\"failed to parse logic tree ({value})\" (line 1, column {column})"),
            "{operator}={value}"
        );
        assert_eq!(details, expected_details, "{operator}={value}");
    }
}

#[test]
fn malformed_trees_are_pgrst100_from_the_query_string() {
    let error = RestError::from(parse(Some("or=(id.eq.1")).unwrap_err());
    assert_eq!(error.code(), "PGRST100");
    // Logic trees are parsed after `order` and before `select` and the filters.
    let (message, _) = parse_error(parse(Some("select=;&id=bad&or=(x")));
    assert!(
        message.starts_with("\"failed to parse logic tree"),
        "{message}"
    );
    let (message, _) = parse_error(parse(Some("order=x.y&or=(x")));
    assert!(message.starts_with("\"failed to parse order"), "{message}");
}

#[test]
fn deep_nesting_is_refused_without_exhausting_the_stack() {
    let nested = |levels: usize| format!("({}id.eq.1{})", "or(".repeat(levels), ")".repeat(levels));
    assert!(parse_tree("or", &nested(15)).is_ok());
    assert!(matches!(
        parse_tree("or", &nested(16)),
        Err(QueryError::NotImplemented(_))
    ));
    assert!(matches!(
        parse_tree("or", &nested(50_000)),
        Err(QueryError::NotImplemented(_))
    ));
}
