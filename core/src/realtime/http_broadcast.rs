//! A broadcast sent over HTTP, as realtime-js's `send` sends one when its channel cannot push
//! (not joined, or no socket): `POST <project>/realtime/v1/api/broadcast?apikey=<key>&vsn=<vsn>`
//! with `{"messages":[{"topic":<name>,"event":…,"payload":…,"private":false}]}`, where `<name>`
//! is the topic without its `realtime:` prefix. The headers are REST's: `apikey`, and the bearer
//! is the signed-in user's token, else the key. Any 2xx resolves `ok`; no answer within the push
//! timeout (10 s) `timed out`; anything else `error`.

use crate::client::base_headers::{base_headers, Service};
use crate::client::http::{HttpRequest, HttpResponse, Method};
use crate::{ClientConfig, NoResponse, RequestTimeout};

use super::action::PushOutcome;
use super::json_text::quote;
use super::serializer::Vsn;
use super::socket_url::connection_query;
use super::timing::PUSH_TIMEOUT_MS;

/// Topics are `realtime:<name>`; realtime-js strips the prefix whatever its case.
const TOPIC_PREFIX: &str = "realtime:";

/// The request for one broadcast of `event` with `payload` (JSON text) on `topic`.
///
/// ```
/// use geocache_core::realtime::{broadcast_request, Vsn};
/// use geocache_core::ClientConfig;
///
/// let config = ClientConfig::new("https://abc.supabase.co", "sb_publishable_k")?;
/// let request = broadcast_request(&config, Vsn::V2, None, "realtime:room", "wave", r#"{"n":1}"#);
/// assert_eq!(
///     request.url,
///     "https://abc.supabase.co/realtime/v1/api/broadcast?apikey=sb_publishable_k&vsn=2.0.0"
/// );
/// assert_eq!(request.header("authorization"), Some("Bearer sb_publishable_k"));
/// assert_eq!(
///     request.body.as_deref(),
///     Some(r#"{"messages":[{"topic":"room","event":"wave","payload":{"n":1},"private":false}]}"#)
/// );
/// # Ok::<(), geocache_core::ConfigError>(())
/// ```
pub fn broadcast_request(
    config: &ClientConfig,
    vsn: Vsn,
    session_token: Option<&str>,
    topic: &str,
    event: &str,
    payload: &str,
) -> HttpRequest {
    let name = topic
        .get(..TOPIC_PREFIX.len())
        .filter(|prefix| prefix.eq_ignore_ascii_case(TOPIC_PREFIX))
        .and_then(|_| topic.get(TOPIC_PREFIX.len()..))
        .unwrap_or(topic);
    let url = format!(
        "{}realtime/v1/api/broadcast?{}",
        config.base_url(),
        connection_query(config, vsn)
    );
    let mut headers = base_headers(config, Service::Rest, session_token);
    headers.push(("content-type".to_owned(), "application/json".to_owned()));
    let body = format!(
        r#"{{"messages":[{{"topic":{},"event":{},"payload":{payload},"private":false}}]}}"#,
        quote(name),
        quote(event)
    );
    HttpRequest {
        method: Method::Post,
        url,
        headers,
        body: Some(body),
    }
}

/// How long the request may take: the channel's push timeout, as realtime-js aborts it.
pub fn broadcast_timeout() -> RequestTimeout {
    RequestTimeout::from_ms(f64::from(PUSH_TIMEOUT_MS)).expect("10 s is a valid timer delay")
}

/// What `send` resolves to once the request has an answer, or has none.
pub fn broadcast_outcome(answer: &Result<HttpResponse, NoResponse>) -> PushOutcome {
    match answer {
        Ok(response) if (200..=299).contains(&response.status) => PushOutcome::Ok,
        Err(NoResponse::TimedOut(_)) => PushOutcome::TimedOut,
        Ok(_) | Err(NoResponse::Network(_)) => PushOutcome::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NetworkFailure;

    fn config(key: &str) -> ClientConfig {
        ClientConfig::new("http://127.0.0.1:54321/", key)
            .unwrap()
            .with_client_info("info")
    }

    #[test]
    fn the_request_names_the_channel_without_its_prefix_and_keeps_the_socket_query() {
        let request = broadcast_request(
            &config("a+b"),
            Vsn::V1,
            None,
            "REALTIME:room:1",
            "e \"1\"",
            "[1,null]",
        );
        assert_eq!(request.method, Method::Post);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/realtime/v1/api/broadcast?apikey=a%2Bb&vsn=1.0.0"
        );
        assert_eq!(
            request.body.as_deref(),
            Some(
                r#"{"messages":[{"topic":"room:1","event":"e \"1\"","payload":[1,null],"private":false}]}"#
            )
        );
        assert_eq!(request.header("content-type"), Some("application/json"));
        assert_eq!(request.header("x-client-info"), Some("info"));
    }

    #[test]
    fn the_bearer_is_the_session_token_else_the_key_of_any_format() {
        for key in ["sb_publishable_k", "eyJhbGciOiJIUzI1NiJ9.e30.sig"] {
            let anonymous = broadcast_request(&config(key), Vsn::V2, None, "realtime:r", "e", "{}");
            assert_eq!(anonymous.header("apikey"), Some(key));
            assert_eq!(
                anonymous.header("authorization").map(str::to_owned),
                Some(format!("Bearer {key}"))
            );
            let signed_in = broadcast_request(
                &config(key),
                Vsn::V2,
                Some("user.jwt"),
                "realtime:r",
                "e",
                "{}",
            );
            assert_eq!(signed_in.header("apikey"), Some(key));
            assert_eq!(signed_in.header("authorization"), Some("Bearer user.jwt"));
        }
    }

    #[test]
    fn any_2xx_is_ok_a_timeout_timed_out_and_the_rest_error() {
        let answer = |status| Ok(HttpResponse::new(status, ""));
        assert_eq!(broadcast_outcome(&answer(202)), PushOutcome::Ok);
        assert_eq!(broadcast_outcome(&answer(200)), PushOutcome::Ok);
        assert_eq!(broadcast_outcome(&answer(199)), PushOutcome::Error);
        assert_eq!(broadcast_outcome(&answer(300)), PushOutcome::Error);
        assert_eq!(broadcast_outcome(&answer(401)), PushOutcome::Error);
        assert_eq!(broadcast_outcome(&answer(500)), PushOutcome::Error);
        let timeout = broadcast_timeout();
        assert_eq!(timeout.ms(), 10_000);
        assert_eq!(
            broadcast_outcome(&Err(NoResponse::TimedOut(timeout))),
            PushOutcome::TimedOut
        );
        let failure = NetworkFailure {
            message: "Failed to fetch".into(),
        };
        assert_eq!(
            broadcast_outcome(&Err(NoResponse::Network(failure))),
            PushOutcome::Error
        );
    }
}
