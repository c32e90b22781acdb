//! Row filters, a second `impl Builder` as in postgrest-rs's filter module. Values are sent as
//! given, never quoted, as postgrest-rs sends them; the query encoder escapes them.

use super::Builder;

impl Builder {
    /// `column=eq.value`
    pub fn eq(self, column: &str, value: &str) -> Self {
        self.filter(column, "eq", value)
    }

    /// `column=neq.value`
    pub fn neq(self, column: &str, value: &str) -> Self {
        self.filter(column, "neq", value)
    }

    /// `column=gt.value`
    pub fn gt(self, column: &str, value: &str) -> Self {
        self.filter(column, "gt", value)
    }

    /// `column=gte.value`
    pub fn gte(self, column: &str, value: &str) -> Self {
        self.filter(column, "gte", value)
    }

    /// `column=in.(v1,v2,...)`: values go out as given, as postgrest-js's `.in()` sends numbers.
    pub fn in_list(self, column: &str, values: &[String]) -> Self {
        let list = format!("({})", values.join(","));
        self.filter(column, "in", &list)
    }

    /// `or=(filters)`: `filters` is PostgREST's logic-tree syntax and goes out as given, as
    /// postgrest-js's `.or(filters)` sends it; values in it that hold reserved characters must
    /// already be quoted.
    pub fn or(mut self, filters: &str) -> Self {
        self.queries.push(("or".to_owned(), format!("({filters})")));
        self
    }

    fn filter(mut self, column: &str, operator: &str, value: &str) -> Self {
        self.queries
            .push((column.to_owned(), format!("{operator}.{value}")));
        self
    }
}

#[cfg(test)]
mod tests {
    use crate::client::config::ClientConfig;
    use crate::rest::Postgrest;

    #[test]
    fn filters_add_one_encoded_pair_each() {
        let config = ClientConfig::new("https://h", "k").unwrap();
        let request = Postgrest::new(&config, None)
            .from("t")
            .select("*")
            .eq("name", "a,b&c d")
            .neq("id", "1")
            .eq("name", "x")
            .gt("id", "41")
            .gte("created_at", "2024-01-01T00:00:00+00:00")
            .or("a.eq.1,b.lt.\"x:y\"")
            .build();
        assert_eq!(
            request.url,
            "https://h/rest/v1/t?select=*&name=eq.a%2Cb%26c+d&id=neq.1&name=eq.x&id=gt.41&created_at=gte.2024-01-01T00%3A00%3A00%2B00%3A00&or=%28a.eq.1%2Cb.lt.%22x%3Ay%22%29"
        );
    }
}
