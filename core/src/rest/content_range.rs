//! PostgREST's `Content-Range` on a read: `<first>-<last>/<total>`, or `*/<total>` when no rows
//! came back, the total being `*` unless a count was asked for. A paged read checks it against
//! the rows of the body, so a proxy or server that mangles pages is caught rather than trusted.

/// Whether `value` is a well-formed `Content-Range` for a body of `rows` rows: `first <= last`,
/// `last - first + 1 == rows`, and `last` below a known total; `*` exactly when there are none.
pub fn matches_rows(value: &str, rows: usize) -> bool {
    let Some((range, total)) = value.trim().split_once('/') else {
        return false;
    };
    let total = match total {
        "*" => None,
        digits => match number(digits) {
            Some(total) => Some(total),
            None => return false,
        },
    };
    if range == "*" {
        return rows == 0;
    }
    let Some((first, last)) = range.split_once('-') else {
        return false;
    };
    match (number(first), number(last)) {
        (Some(first), Some(last)) => {
            first <= last
                && last - first + 1 == rows as u64
                && total.is_none_or(|total| last < total)
        }
        _ => false,
    }
}

/// Decimal digits only: no sign, no spaces, no empty string.
fn number(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_ranges_match_their_row_count() {
        assert!(matches_rows("0-999/*", 1000));
        assert!(matches_rows("0-6/*", 7));
        assert!(matches_rows("0-999/5000", 1000));
        assert!(matches_rows("10-10/11", 1));
        assert!(matches_rows("*/*", 0));
        assert!(matches_rows("*/0", 0));
        assert!(matches_rows(" 0-0/* ", 1));
    }

    #[test]
    fn malformed_or_inconsistent_ranges_are_refused() {
        for (value, rows) in [
            ("", 0),
            ("0-9", 10),
            ("bytes 0-9/*", 10),
            ("0-9/*", 7),
            ("*/*", 1),
            ("9-0/*", 10),
            ("-1-5/*", 7),
            ("0-+5/*", 6),
            ("0-4/4", 5),
            ("0-4/x", 5),
            ("0 -4/*", 5),
            ("a-b/*", 0),
            ("0-99999999999999999999/*", 1),
        ] {
            assert!(!matches_rows(value, rows), "{value:?} with {rows} rows");
        }
    }
}
