//! Comparing secrets without an early exit, as GoTrue does (`subtle.ConstantTimeCompare`), so the
//! time an answer takes does not tell how much of a guessed code was right.

pub fn eq(left: &[u8], right: &[u8]) -> bool {
    left.len() == right.len()
        && left
            .iter()
            .zip(right)
            .fold(0u8, |difference, (a, b)| difference | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_whole_strings() {
        assert!(eq(b"123456", b"123456"));
        assert!(!eq(b"123456", b"123457"));
        assert!(!eq(b"123456", b"12345"));
    }
}
