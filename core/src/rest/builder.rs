//! A PostgREST request builder in the postgrest-rs style that stops at a plain [`HttpRequest`].
//!
//! Headers are the ones supabase-js sends through `fetchWithAuth` and postgrest-js: the base
//! headers ([`base_headers`]: `x-client-info`, `apikey`, `authorization: Bearer <session token or
//! key>`), then `accept-profile` for reads or `content-profile` plus `content-type:
//! application/json` for writes.

use crate::client::base_headers::{base_headers, Service};
use crate::client::config::{is_js_whitespace, ClientConfig};
use crate::client::http::{encode_query, percent_encode, Component, HttpRequest, Method};

/// supabase-js's default `db.schema`: the PostgreSQL schema PostgREST serves, named in the
/// `accept-profile` / `content-profile` headers (not the JSON shape of the rows, see
/// [`crate::logbook::schema`]).
const DEFAULT_DB_SCHEMA: &str = "public";

/// The REST endpoint and the credentials every request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Postgrest {
    rest_url: String,
    db_schema: String,
    headers: Vec<(String, String)>,
}

impl Postgrest {
    /// `session_token` is the signed-in user's access token, sent as the bearer; without one
    /// the key itself is, whatever its format.
    ///
    /// ```
    /// use geocache_core::rest::Postgrest;
    /// use geocache_core::{ClientConfig, Method};
    ///
    /// let config = ClientConfig::new("https://abc.supabase.co", "key")?;
    /// let request = Postgrest::new(&config, Some("user-token"))
    ///     .from("geocache_logs")
    ///     .select("id,name")
    ///     .order("id", true)
    ///     .limit(10)
    ///     .build();
    /// assert_eq!(request.method, Method::Get);
    /// assert_eq!(
    ///     request.url,
    ///     "https://abc.supabase.co/rest/v1/geocache_logs?select=id%2Cname&order=id.asc&limit=10"
    /// );
    /// assert_eq!(request.header("authorization"), Some("Bearer user-token"));
    /// # Ok::<(), geocache_core::ConfigError>(())
    /// ```
    pub fn new(config: &ClientConfig, session_token: Option<&str>) -> Self {
        Postgrest {
            rest_url: config.rest_url().to_owned(),
            db_schema: DEFAULT_DB_SCHEMA.to_owned(),
            headers: base_headers(config, Service::Rest, session_token),
        }
    }

    /// Targets another exposed database schema (sent as `accept-profile` / `content-profile`).
    pub fn db_schema(mut self, db_schema: impl Into<String>) -> Self {
        self.db_schema = db_schema.into();
        self
    }

    /// `POST /rpc/<function>` with a JSON object body of its arguments (postgrest-js's
    /// `.rpc(function, args)`); `order`, `limit` and filters apply to the rows it returns.
    pub fn rpc(&self, function: &str, json_args: impl Into<String>) -> Builder {
        let mut builder = self.from("rpc");
        builder.url.push('/');
        builder
            .url
            .push_str(&percent_encode(function, Component::PathSegment));
        builder.insert(json_args)
    }

    /// Starts a request on `table`. Without a further call it is `GET` with no query.
    pub fn from(&self, table: &str) -> Builder {
        Builder {
            method: Method::Get,
            url: format!(
                "{}/{}",
                self.rest_url,
                percent_encode(table, Component::PathSegment)
            ),
            db_schema: self.db_schema.clone(),
            queries: Vec::new(),
            headers: self.headers.clone(),
            body: None,
        }
    }
}

/// One request under construction. Each method adds one query pair, header or body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builder {
    method: Method,
    url: String,
    db_schema: String,
    pub(crate) queries: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

impl Builder {
    /// `GET ?select=<columns>`; whitespace outside double quotes is dropped, as postgrest-js does.
    pub fn select(mut self, columns: &str) -> Self {
        let mut quoted = false;
        let cleaned: String = columns
            .chars()
            .filter(|&c| {
                if c == '"' {
                    quoted = !quoted;
                }
                quoted || !is_js_whitespace(c)
            })
            .collect();
        self.method = Method::Get;
        self.set_query("select", cleaned);
        self
    }

    /// `.select(columns)` after a write (postgrest-js's transform): `?select=<columns>` and
    /// `Prefer: return=representation`, so the answer holds the rows as stored. The method stays.
    pub fn returning(self, columns: &str) -> Self {
        let method = self.method;
        let mut builder = self
            .select(columns)
            .header("Prefer", "return=representation");
        builder.method = method;
        builder
    }

    /// Adds `column.asc` or `column.desc` to `order`, comma-joined on repeat.
    pub fn order(mut self, column: &str, ascending: bool) -> Self {
        let term = format!("{column}.{}", if ascending { "asc" } else { "desc" });
        match self.queries.iter_mut().find(|(key, _)| key == "order") {
            Some((_, value)) => {
                value.push(',');
                value.push_str(&term);
            }
            None => self.queries.push(("order".into(), term)),
        }
        self
    }

    /// `limit=<count>`: at most `count` rows (postgrest-js's `.limit(count)`), replacing an earlier one.
    pub fn limit(mut self, count: u64) -> Self {
        self.set_query("limit", count.to_string());
        self
    }

    /// `POST` of a JSON body (an object or an array), serialised by the caller.
    pub fn insert(mut self, json_body: impl Into<String>) -> Self {
        self.method = Method::Post;
        self.body = Some(json_body.into());
        self
    }

    /// `PATCH` of the rows matched by the filters with a JSON object body.
    pub fn update(mut self, json_body: impl Into<String>) -> Self {
        self.method = Method::Patch;
        self.body = Some(json_body.into());
        self
    }

    /// `DELETE` of the rows matched by the filters.
    pub fn delete(mut self) -> Self {
        self.method = Method::Delete;
        self.body = None;
        self
    }

    /// Adds a request header, replacing one of the same name.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        let name = name.to_ascii_lowercase();
        self.headers.retain(|(key, _)| *key != name);
        self.headers.push((name, value.into()));
        self
    }

    pub fn build(self) -> HttpRequest {
        let mut headers = self.headers;
        if matches!(self.method, Method::Get | Method::Head) {
            headers.push(("accept-profile".into(), self.db_schema));
        } else {
            headers.push(("content-profile".into(), self.db_schema));
            headers.push(("content-type".into(), "application/json".into()));
        }
        let url = if self.queries.is_empty() {
            self.url
        } else {
            format!("{}?{}", self.url, encode_query(&self.queries))
        };
        HttpRequest {
            method: self.method,
            url,
            headers,
            body: self.body,
        }
    }

    fn set_query(&mut self, key: &str, value: String) {
        match self
            .queries
            .iter_mut()
            .find(|(existing, _)| existing == key)
        {
            Some((_, existing)) => *existing = value,
            None => self.queries.push((key.into(), value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn postgrest() -> Postgrest {
        let config = ClientConfig::new("https://x.supabase.co", "anon")
            .unwrap()
            .with_client_info("geocache-client/1.2.3; runtime=web");
        Postgrest::new(&config, Some("token"))
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn reads_carry_the_supabase_js_headers() {
        let request = postgrest().from("t").select("*").build();
        assert_eq!(request.method, Method::Get);
        assert_eq!(request.url, "https://x.supabase.co/rest/v1/t?select=*");
        assert_eq!(
            request.headers,
            pairs(&[
                ("x-client-info", "geocache-client/1.2.3; runtime=web"),
                ("apikey", "anon"),
                ("authorization", "Bearer token"),
                ("accept-profile", "public"),
            ])
        );
        assert_eq!(request.body, None);
    }

    #[test]
    fn a_write_returning_its_rows_keeps_its_method() {
        let request = postgrest()
            .from("t")
            .insert(r#"{"a":1}"#)
            .returning(" id, a ")
            .build();
        assert_eq!(request.method, Method::Post);
        assert_eq!(request.url, "https://x.supabase.co/rest/v1/t?select=id%2Ca");
        assert_eq!(request.header("prefer"), Some("return=representation"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.body.as_deref(), Some(r#"{"a":1}"#));
    }

    #[test]
    fn writes_carry_content_profile_and_type_and_no_prefer() {
        let request = postgrest().from("t").insert(r#"{"a":1}"#).build();
        assert_eq!(request.method, Method::Post);
        assert_eq!(request.url, "https://x.supabase.co/rest/v1/t");
        assert_eq!(request.header("content-profile"), Some("public"));
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.header("accept-profile"), None);
        assert_eq!(request.header("prefer"), None);
        assert_eq!(request.body.as_deref(), Some(r#"{"a":1}"#));

        let request = postgrest().from("t").update("{}").eq("id", "1").build();
        assert_eq!(request.method, Method::Patch);
        assert_eq!(request.url, "https://x.supabase.co/rest/v1/t?id=eq.1");
        assert_eq!(request.header("content-profile"), Some("public"));

        let request = postgrest().from("t").delete().eq("id", "1").build();
        assert_eq!((request.method, &request.body), (Method::Delete, &None));
        assert_eq!(request.header("content-type"), Some("application/json"));
    }

    #[test]
    fn select_strips_whitespace_outside_quotes() {
        let request = postgrest()
            .from("t")
            .select(" id, name ,\"odd name\"\n")
            .build();
        assert_eq!(
            request.url,
            "https://x.supabase.co/rest/v1/t?select=id%2Cname%2C%22odd+name%22"
        );
        let request = postgrest().from("t").select("a").select("b").build();
        assert_eq!(request.url, "https://x.supabase.co/rest/v1/t?select=b");
    }

    #[test]
    fn order_terms_are_comma_joined() {
        let request = postgrest()
            .from("t")
            .select("*")
            .order("created_at", false)
            .order("id", true)
            .build();
        assert_eq!(
            request.url,
            "https://x.supabase.co/rest/v1/t?select=*&order=created_at.desc%2Cid.asc"
        );
    }

    #[test]
    fn limit_follows_order_and_replaces_an_earlier_one() {
        let request = postgrest()
            .from("t")
            .select("*")
            .order("created_at", false)
            .limit(50)
            .limit(30)
            .build();
        assert_eq!(
            request.url,
            "https://x.supabase.co/rest/v1/t?select=*&order=created_at.desc&limit=30"
        );
    }

    #[test]
    fn table_names_are_one_encoded_path_segment() {
        let request = postgrest().from("../auth/v1/user?x").build();
        assert_eq!(
            request.url,
            "https://x.supabase.co/rest/v1/..%2Fauth%2Fv1%2Fuser%3Fx"
        );
    }

    #[test]
    fn db_schema_and_headers_can_be_set() {
        let request = postgrest()
            .db_schema("other")
            .from("t")
            .header("Prefer", "return=representation")
            .header("prefer", "return=minimal")
            .select("*")
            .build();
        assert_eq!(request.header("accept-profile"), Some("other"));
        let prefers: Vec<_> = request
            .headers
            .iter()
            .filter(|(k, _)| k == "prefer")
            .collect();
        assert_eq!(
            prefers,
            [&("prefer".to_owned(), "return=minimal".to_owned())]
        );
    }

    #[test]
    fn the_bearer_is_independent_of_the_apikey() {
        let config = ClientConfig::new("https://h", "anon").unwrap();
        let request = Postgrest::new(&config, Some("user-jwt")).from("t").build();
        assert_eq!(request.header("apikey"), Some("anon"));
        assert_eq!(request.header("authorization"), Some("Bearer user-jwt"));
    }

    #[test]
    fn every_key_format_is_the_apikey_and_the_bearer_without_a_session() {
        for key in [
            "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.sig",
            "sb_publishable_abc",
            "sb_secret_abc",
            "sb_temp_abc",
        ] {
            let config = ClientConfig::new("https://h", key).unwrap();
            let read = Postgrest::new(&config, None).from("t").select("*").build();
            let write = Postgrest::new(&config, None).from("t").insert("{}").build();
            for request in [read, write] {
                assert_eq!(request.header("apikey"), Some(key));
                let bearer = format!("Bearer {key}");
                assert_eq!(request.header("authorization"), Some(bearer.as_str()));
            }
            let request = Postgrest::new(&config, Some("user.jwt")).from("t").build();
            assert_eq!(request.header("apikey"), Some(key));
            assert_eq!(request.header("authorization"), Some("Bearer user.jwt"));
        }
    }
}
