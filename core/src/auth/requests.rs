//! Auth request builders that end in a plain [`HttpRequest`], with the headers supabase-js 2.109
//! sends (auth-js `_request` in src/lib/fetch.ts): the client's base headers
//! ([`base_headers`]: `X-Client-Info`, `apikey`, `Authorization: Bearer <key>` whatever the key's
//! format, or the user's JWT where a call passes one), `X-Supabase-Api-Version: 2024-01-01`
//! always, and a JSON content type on every non-GET request.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{AuthError, API_VERSION, API_VERSION_HEADER};
use crate::client::base_headers::{base_headers, Service};
use crate::client::config::ClientConfig;
use crate::client::http::{encode_query, percent_encode, Component, HttpRequest, Method};

/// auth-js's content type for request bodies.
pub const JSON_CONTENT_TYPE: &str = "application/json;charset=UTF-8";

/// The auth endpoint and the credentials every auth request carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthApi {
    config: ClientConfig,
}

impl AuthApi {
    /// The auth requests of one project.
    ///
    /// ```
    /// use geocache_core::auth::{AuthApi, PasswordCredentials};
    /// use geocache_core::{ClientConfig, Method};
    ///
    /// let api = AuthApi::new(&ClientConfig::new("https://abc.supabase.co", "key")?);
    /// let request = api
    ///     .sign_in_with_password(&PasswordCredentials {
    ///         email: Some("ada@example.com".into()),
    ///         password: Some("secret".into()),
    ///         ..PasswordCredentials::default()
    ///     })
    ///     .expect("an email and a password");
    /// assert_eq!(request.method, Method::Post);
    /// assert_eq!(request.url, "https://abc.supabase.co/auth/v1/token?grant_type=password");
    /// assert!(request.body.as_deref().is_some_and(|body| body.contains("ada@example.com")));
    /// # Ok::<(), geocache_core::ConfigError>(())
    /// ```
    pub fn new(config: &ClientConfig) -> Self {
        AuthApi {
            config: config.clone(),
        }
    }

    /// A request to `{auth_url}/{path}`; `path` is joined as given, so callers encode ids.
    pub(crate) fn request(&self, method: Method, path: &str) -> AuthRequest<'_> {
        AuthRequest {
            config: &self.config,
            method,
            url: format!("{}/{path}", self.config.auth_url()),
            queries: Vec::new(),
            session_token: None,
            body: None,
        }
    }

    /// `POST /signup` (+ `?redirect_to=` for `emailRedirectTo`).
    pub fn sign_up(&self, credentials: &SignUpCredentials) -> Result<HttpRequest, AuthError> {
        let options = &credentials.options;
        let security = MetaSecurity {
            captcha_token: options.captcha_token.as_deref(),
        };
        let data = options
            .data
            .clone()
            .unwrap_or_else(|| Value::Object(Default::default()));
        let body = match (&credentials.email, &credentials.phone) {
            (Some(email), _) => to_json(&EmailSignUpBody {
                email,
                password: credentials.password.as_deref(),
                data,
                gotrue_meta_security: security,
                code_challenge: None,
                code_challenge_method: None,
            }),
            (None, Some(phone)) => to_json(&PhoneSignUpBody {
                phone,
                password: credentials.password.as_deref(),
                data,
                channel: options.channel.unwrap_or_default(),
                gotrue_meta_security: security,
            }),
            (None, None) => return Err(AuthError::InvalidCredentials),
        };
        let mut request = self.request(Method::Post, "signup");
        if let (Some(redirect_to), Some(_)) = (&options.email_redirect_to, &credentials.email) {
            request = request.query("redirect_to", redirect_to);
        }
        Ok(request.json(body).build())
    }

    /// `POST /token?grant_type=password`.
    pub fn sign_in_with_password(
        &self,
        credentials: &PasswordCredentials,
    ) -> Result<HttpRequest, AuthError> {
        let security = MetaSecurity {
            captcha_token: credentials.options.captcha_token.as_deref(),
        };
        let password = credentials.password.as_deref();
        let body = match (&credentials.email, &credentials.phone) {
            (Some(email), _) => to_json(&EmailSignInBody {
                email,
                password,
                gotrue_meta_security: security,
            }),
            (None, Some(phone)) => to_json(&PhoneSignInBody {
                phone,
                password,
                gotrue_meta_security: security,
            }),
            (None, None) => return Err(AuthError::InvalidCredentials),
        };
        Ok(self
            .request(Method::Post, "token")
            .query("grant_type", "password")
            .json(body)
            .build())
    }

    /// `POST /token?grant_type=refresh_token` with `{"refresh_token"}`; the bearer stays the anon key.
    pub fn refresh_session(&self, refresh_token: &str) -> HttpRequest {
        let body = serde_json::json!({ "refresh_token": refresh_token }).to_string();
        self.request(Method::Post, "token")
            .query("grant_type", "refresh_token")
            .json(body)
            .build()
    }

    /// `GET /user` as the user.
    pub fn get_user(&self, jwt: &str) -> HttpRequest {
        self.request(Method::Get, "user").bearer(Some(jwt)).build()
    }

    /// `POST /logout?scope=…` as the user, with no body (the content type is still sent).
    pub fn sign_out(&self, jwt: &str, scope: SignOutScope) -> HttpRequest {
        self.request(Method::Post, "logout")
            .query("scope", scope.as_str())
            .bearer(Some(jwt))
            .build()
    }
}

/// One auth request under construction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthRequest<'a> {
    config: &'a ClientConfig,
    method: Method,
    url: String,
    queries: Vec<(String, String)>,
    /// The user's JWT for calls made as the user; `None` sends the key as the bearer.
    session_token: Option<String>,
    body: Option<String>,
}

impl AuthRequest<'_> {
    pub(crate) fn query(mut self, key: &str, value: &str) -> Self {
        self.queries.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Sends the user's JWT as the bearer when there is one; without a session supabase-js
    /// sends the request with the key as the bearer and lets the server refuse it.
    pub(crate) fn bearer(mut self, jwt: Option<&str>) -> Self {
        if let Some(jwt) = jwt {
            self.session_token = Some(jwt.to_owned());
        }
        self
    }

    pub(crate) fn json(mut self, body: String) -> Self {
        self.body = Some(body);
        self
    }

    pub(crate) fn build(self) -> HttpRequest {
        let mut headers = base_headers(self.config, Service::Auth, self.session_token.as_deref());
        headers.push((API_VERSION_HEADER.into(), API_VERSION.into()));
        if self.method != Method::Get {
            headers.push(("content-type".into(), JSON_CONTENT_TYPE.into()));
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
}

/// `factors/{id}` plus an optional action: the one place an id enters a path, as one encoded
/// segment, so an id can never add or climb segments.
pub(crate) fn factor_path(factor_id: &str, action: Option<&str>) -> String {
    let id = percent_encode(factor_id, Component::PathSegment);
    match action {
        Some(action) => format!("factors/{id}/{action}"),
        None => format!("factors/{id}"),
    }
}

/// `JSON.stringify` of a body struct, fields in declaration order (going through `Value` would sort
/// them). Serialising these plain structs of strings and JSON values cannot fail.
pub(crate) fn to_json<T: Serialize>(body: &T) -> String {
    serde_json::to_string(body)
        .expect("request bodies are plain structs of strings and JSON values")
}

/// `signUp` arguments: an email or a phone with a password, as supabase-js takes them.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignUpCredentials {
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub options: SignUpOptions,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignUpOptions {
    /// Sent as `?redirect_to=` for email sign-ups.
    #[serde(default)]
    pub email_redirect_to: Option<String>,
    /// User metadata, sent as `data` (`{}` when absent).
    #[serde(default)]
    pub data: Option<Value>,
    #[serde(default)]
    pub captcha_token: Option<String>,
    /// Phone sign-ups only; `sms` when absent.
    #[serde(default)]
    pub channel: Option<Channel>,
}

/// `signInWithPassword` arguments.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PasswordCredentials {
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub phone: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    #[serde(default)]
    pub options: SignInOptions,
}

#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignInOptions {
    #[serde(default)]
    pub captcha_token: Option<String>,
}

/// Where an SMS-like code goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    #[default]
    Sms,
    Whatsapp,
}

/// Which sessions `signOut` ends: all of the user's (`global`), this one (`local`), or the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SignOutScope {
    #[default]
    Global,
    Local,
    Others,
}

impl SignOutScope {
    pub fn as_str(self) -> &'static str {
        match self {
            SignOutScope::Global => "global",
            SignOutScope::Local => "local",
            SignOutScope::Others => "others",
        }
    }
}

/// `gotrue_meta_security`: `{}` unless a captcha token is given (`undefined` keys are dropped).
#[derive(Serialize)]
struct MetaSecurity<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    captcha_token: Option<&'a str>,
}

#[derive(Serialize)]
struct EmailSignUpBody<'a> {
    email: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<&'a str>,
    data: Value,
    gotrue_meta_security: MetaSecurity<'a>,
    /// Set only for the PKCE flow, which this client does not use: always `null`.
    code_challenge: Option<&'a str>,
    code_challenge_method: Option<&'a str>,
}

#[derive(Serialize)]
struct PhoneSignUpBody<'a> {
    phone: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<&'a str>,
    data: Value,
    channel: Channel,
    gotrue_meta_security: MetaSecurity<'a>,
}

#[derive(Serialize)]
struct EmailSignInBody<'a> {
    email: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<&'a str>,
    gotrue_meta_security: MetaSecurity<'a>,
}

#[derive(Serialize)]
struct PhoneSignInBody<'a> {
    phone: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    password: Option<&'a str>,
    gotrue_meta_security: MetaSecurity<'a>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) const KEY: &str = "anon.key.sig";

    pub(crate) fn api() -> AuthApi {
        let config = ClientConfig::new("http://127.0.0.1:54321", KEY)
            .unwrap()
            .with_client_info("geocache-client/0.1.0; runtime=web");
        AuthApi::new(&config)
    }

    pub(crate) fn headers(bearer: &str, with_body: bool) -> Vec<(String, String)> {
        let mut headers = vec![
            ("x-client-info", "geocache-client/0.1.0; runtime=web"),
            ("apikey", KEY),
            ("authorization", bearer),
            ("x-supabase-api-version", "2024-01-01"),
        ];
        if with_body {
            headers.push(("content-type", "application/json;charset=UTF-8"));
        }
        headers
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    fn credentials(email: &str, password: &str) -> SignUpCredentials {
        SignUpCredentials {
            email: Some(email.into()),
            password: Some(password.into()),
            ..Default::default()
        }
    }

    #[test]
    fn sign_up_matches_supabase_js() {
        let request = api()
            .sign_up(&credentials("ann@example.com", "pw \"1\""))
            .unwrap();
        assert_eq!(
            request,
            HttpRequest {
                method: Method::Post,
                url: "http://127.0.0.1:54321/auth/v1/signup".into(),
                headers: headers(&format!("Bearer {KEY}"), true),
                body: Some(
                    r#"{"email":"ann@example.com","password":"pw \"1\"","data":{},"gotrue_meta_security":{},"code_challenge":null,"code_challenge_method":null}"#
                        .into()
                ),
            }
        );
    }

    #[test]
    fn sign_up_options_fill_data_captcha_and_redirect() {
        let mut credentials = credentials("a@b.c", "pw");
        credentials.options = SignUpOptions {
            email_redirect_to: Some("https://app/welcome?x=1&y".into()),
            data: Some(json!({"nick": "ann"})),
            captcha_token: Some("cap".into()),
            channel: None,
        };
        let request = api().sign_up(&credentials).unwrap();
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/auth/v1/signup?redirect_to=https%3A%2F%2Fapp%2Fwelcome%3Fx%3D1%26y"
        );
        assert_eq!(
            request.body.as_deref(),
            Some(
                r#"{"email":"a@b.c","password":"pw","data":{"nick":"ann"},"gotrue_meta_security":{"captcha_token":"cap"},"code_challenge":null,"code_challenge_method":null}"#
            )
        );
    }

    #[test]
    fn phone_sign_up_sends_the_channel() {
        let credentials = SignUpCredentials {
            phone: Some("+15550001".into()),
            password: Some("pw".into()),
            options: SignUpOptions {
                channel: Some(Channel::Whatsapp),
                email_redirect_to: Some("ignored".into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let request = api().sign_up(&credentials).unwrap();
        assert_eq!(request.url, "http://127.0.0.1:54321/auth/v1/signup");
        assert_eq!(
            request.body.as_deref(),
            Some(
                r#"{"phone":"+15550001","password":"pw","data":{},"channel":"whatsapp","gotrue_meta_security":{}}"#
            )
        );
    }

    #[test]
    fn credentials_without_email_or_phone_are_refused() {
        let error = api().sign_up(&SignUpCredentials::default()).unwrap_err();
        assert_eq!(error, AuthError::InvalidCredentials);
        let error = api()
            .sign_in_with_password(&PasswordCredentials::default())
            .unwrap_err();
        assert_eq!(error, AuthError::InvalidCredentials);
    }

    #[test]
    fn sign_in_with_password_matches_supabase_js() {
        let credentials = PasswordCredentials {
            email: Some("ann@example.com".into()),
            password: Some("pw".into()),
            ..Default::default()
        };
        let request = api().sign_in_with_password(&credentials).unwrap();
        assert_eq!(request.method, Method::Post);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/auth/v1/token?grant_type=password"
        );
        assert_eq!(request.headers, headers(&format!("Bearer {KEY}"), true));
        assert_eq!(
            request.body.as_deref(),
            Some(r#"{"email":"ann@example.com","password":"pw","gotrue_meta_security":{}}"#)
        );
        let phone = PasswordCredentials {
            phone: Some("+1".into()),
            ..Default::default()
        };
        assert_eq!(
            api().sign_in_with_password(&phone).unwrap().body.as_deref(),
            Some(r#"{"phone":"+1","gotrue_meta_security":{}}"#)
        );
    }

    #[test]
    fn refresh_sends_the_token_with_the_anon_bearer() {
        let request = api().refresh_session("r\"1");
        assert_eq!(
            request,
            HttpRequest {
                method: Method::Post,
                url: "http://127.0.0.1:54321/auth/v1/token?grant_type=refresh_token".into(),
                headers: headers(&format!("Bearer {KEY}"), true),
                body: Some(r#"{"refresh_token":"r\"1"}"#.into()),
            }
        );
    }

    #[test]
    fn get_user_is_a_get_with_the_user_bearer_and_no_content_type() {
        assert_eq!(
            api().get_user("user.jwt"),
            HttpRequest {
                method: Method::Get,
                url: "http://127.0.0.1:54321/auth/v1/user".into(),
                headers: headers("Bearer user.jwt", false),
                body: None,
            }
        );
    }

    #[test]
    fn sign_out_names_the_scope_and_has_no_body() {
        for (scope, name) in [
            (SignOutScope::Global, "global"),
            (SignOutScope::Local, "local"),
            (SignOutScope::Others, "others"),
        ] {
            let request = api().sign_out("user.jwt", scope);
            assert_eq!(request.method, Method::Post);
            assert_eq!(
                request.url,
                format!("http://127.0.0.1:54321/auth/v1/logout?scope={name}")
            );
            assert_eq!(request.headers, headers("Bearer user.jwt", true));
            assert_eq!(request.body, None);
        }
        assert_eq!(SignOutScope::default(), SignOutScope::Global);
        let scope: SignOutScope = serde_json::from_value(json!("others")).unwrap();
        assert_eq!(scope, SignOutScope::Others);
        assert!(serde_json::from_value::<SignOutScope>(json!("everyone")).is_err());
    }

    #[test]
    fn every_key_format_is_the_apikey_and_the_bearer_until_a_call_passes_the_users_jwt() {
        for key in [
            "eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiYW5vbiJ9.sig",
            "sb_publishable_abc",
            "sb_secret_abc",
            "sb_temp_abc",
        ] {
            let api = AuthApi::new(&ClientConfig::new("https://h", key).unwrap());
            let bearer = format!("Bearer {key}");
            let refresh = api.refresh_session("r");
            assert_eq!(refresh.header("apikey"), Some(key));
            assert_eq!(refresh.header("authorization"), Some(bearer.as_str()));
            let user = api.get_user("user.jwt");
            assert_eq!(user.header("apikey"), Some(key));
            assert_eq!(user.header("authorization"), Some("Bearer user.jwt"));
            let anonymous = api.request(Method::Get, "user").bearer(None).build();
            assert_eq!(anonymous.header("authorization"), Some(bearer.as_str()));
        }
    }

    #[test]
    fn factor_ids_are_one_encoded_path_segment() {
        let cases = [
            ("d7f0", None, "factors/d7f0"),
            ("d7f0", Some("verify"), "factors/d7f0/verify"),
            ("../user", Some("challenge"), "factors/..%2Fuser/challenge"),
            ("a b?c#d", None, "factors/a%20b%3Fc%23d"),
            ("é", None, "factors/%C3%A9"),
        ];
        for (id, action, path) in cases {
            assert_eq!(factor_path(id, action), path, "{id}");
        }
    }

    #[test]
    fn credentials_deserialize_from_supabase_js_shapes() {
        let credentials: SignUpCredentials = serde_json::from_value(json!({
            "email": "a@b.c", "password": "pw",
            "options": {"emailRedirectTo": "https://x", "data": {"k": 1}, "captchaToken": "t"}
        }))
        .unwrap();
        assert_eq!(
            credentials.options.email_redirect_to.as_deref(),
            Some("https://x")
        );
        assert_eq!(credentials.options.captcha_token.as_deref(), Some("t"));
        let credentials: PasswordCredentials =
            serde_json::from_value(json!({"phone": "+1", "password": "pw"})).unwrap();
        assert_eq!(credentials.phone.as_deref(), Some("+1"));
        assert!(serde_json::from_value::<PasswordCredentials>(json!({"email": 5})).is_err());
    }
}
