//! Rendering rows as PostgREST does: JSON keyed by the projection (duplicates and aliases kept,
//! in select order), `Content-Range`, and the status for counted partial reads.

use crate::rest::error::RestError;
use crate::rest::media::{self, Output};
use crate::rest::plan::Projection;
use crate::table::Record;
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// Renders rows as a JSON array, or as one object for `Output::SingleObject` (PGRST116 unless
/// exactly one row). Keys are written by hand so their order and duplicates match the select.
pub fn render<R: Record>(
    rows: &[R],
    projection: &Projection,
    output: Output,
) -> Result<String, RestError> {
    let objects: Vec<String> = rows.iter().map(|row| object(row, projection)).collect();
    match output {
        Output::Array => Ok(format!("[{}]", objects.join(","))),
        Output::SingleObject => match objects.as_slice() {
            [only] => Ok(only.clone()),
            _ => Err(RestError::singularity(objects.len())),
        },
    }
}

fn object<R: Record>(row: &R, projection: &Projection) -> String {
    let fields: Vec<String> = projection
        .0
        .iter()
        .map(|(key, column)| {
            format!(
                "{}:{}",
                serde_json::Value::from(key.as_str()),
                row.json(*column)
            )
        })
        .collect();
    format!("{{{}}}", fields.join(","))
}

pub fn content_type(output: Output) -> &'static str {
    match output {
        Output::Array => media::JSON,
        Output::SingleObject => media::OBJECT_JSON,
    }
}

/// PostgREST's `contentRangeH`: `lower-upper/total`, `*` for an empty range, `*` for an
/// unknown total.
pub fn content_range(lower: i64, upper: i64, total: Option<i64>) -> String {
    let range = if total != Some(0) && lower <= upper {
        format!("{lower}-{upper}")
    } else {
        "*".to_owned()
    };
    let total = total.map_or_else(|| "*".to_owned(), |total| total.to_string());
    format!("{range}/{total}")
}

/// PostgREST's `rangeStatusHeader` for reads: 200, 206 when a counted read returns fewer rows
/// than exist, PGRST103 (416) when the offset is past the end.
pub fn read_status(
    offset: i64,
    returned: usize,
    total: Option<i64>,
) -> Result<(StatusCode, String), RestError> {
    let returned = i64::try_from(returned).unwrap_or(i64::MAX);
    let upper = offset + returned - 1;
    let status = match total {
        None => StatusCode::OK,
        Some(total) if offset > total => {
            return Err(RestError::offset_out_of_bounds(offset, total))
        }
        Some(total) if returned < total => StatusCode::PARTIAL_CONTENT,
        Some(_) => StatusCode::OK,
    };
    Ok((status, content_range(offset, upper, total)))
}

/// Assembles a response; `body` is `None` for minimal/HEAD responses.
pub fn build(
    status: StatusCode,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Option<(String, Output)>,
) -> Response {
    let mut response = match body {
        Some((text, output)) => {
            (status, [(header::CONTENT_TYPE, content_type(output))], text).into_response()
        }
        None => status.into_response(),
    };
    response.headers_mut().extend(headers);
    response
}

pub fn content_range_header(value: String) -> (HeaderName, HeaderValue) {
    (
        header::CONTENT_RANGE,
        HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("*/*")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Column, Row};

    fn row(id: i64) -> Row {
        Row {
            id,
            created_at: 1_714_566_896_789_012,
            name: "n\"<b>".into(),
            message: "m".into(),
        }
    }

    #[test]
    fn objects_follow_the_projection() {
        let projection = Projection(vec![
            ("message".into(), Column::Message),
            ("who".into(), Column::Name),
            ("id".into(), Column::Id),
            ("id".into(), Column::Id),
            ("created_at".into(), Column::CreatedAt),
        ]);
        assert_eq!(
            render(&[row(1)], &projection, Output::Array).unwrap(),
            r#"[{"message":"m","who":"n\"<b>","id":1,"id":1,"created_at":"2024-05-01T12:34:56.789012+00:00"}]"#
        );
    }

    #[test]
    fn single_object_needs_exactly_one_row() {
        let projection = Projection(vec![("id".into(), Column::Id)]);
        assert_eq!(
            render(&[row(3)], &projection, Output::SingleObject).unwrap(),
            r#"{"id":3}"#
        );
        assert_eq!(
            render(&[row(1), row(2)], &projection, Output::SingleObject)
                .unwrap_err()
                .code(),
            "PGRST116"
        );
        assert_eq!(
            render::<Row>(&[], &projection, Output::SingleObject)
                .unwrap_err()
                .code(),
            "PGRST116"
        );
    }

    #[test]
    fn content_range_matches_postgrest() {
        assert_eq!(content_range(0, 9, None), "0-9/*");
        assert_eq!(content_range(0, -1, None), "*/*");
        assert_eq!(content_range(5, 6, Some(42)), "5-6/42");
        assert_eq!(content_range(0, -1, Some(0)), "*/0");
        assert_eq!(content_range(1, 0, Some(3)), "*/3");
    }

    #[test]
    fn read_status_is_206_for_partial_counted_reads_and_416_past_the_end() {
        assert_eq!(
            read_status(0, 3, None).unwrap(),
            (StatusCode::OK, "0-2/*".into())
        );
        assert_eq!(
            read_status(0, 3, Some(3)).unwrap(),
            (StatusCode::OK, "0-2/3".into())
        );
        assert_eq!(
            read_status(1, 2, Some(5)).unwrap(),
            (StatusCode::PARTIAL_CONTENT, "1-2/5".into())
        );
        assert_eq!(read_status(9, 0, Some(5)).unwrap_err().code(), "PGRST103");
    }
}
