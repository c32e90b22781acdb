//! Multi-factor authentication: a namespace of small builders (auth-js `this.mfa` and its
//! `_enroll`, `_challenge`, `_verify`, `_unenroll`) and the typed results of each call, including
//! the client-side ones (`listFactors` grouping, `getAuthenticatorAssuranceLevel`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::AuthError;
use super::jwt_claims::JwtClaims;
use super::requests::{factor_path, to_json, AuthApi, Channel};
use super::session::{js_number, parse_session_response, Session};
use super::user::{Factor, FactorStatus, FactorType};
use crate::client::http::{HttpRequest, Method};
use crate::client::unix_time::UnixTime;

/// What supabase-js prepends to the server's raw SVG to make `totp.qr_code` an image URL.
pub const QR_CODE_DATA_URL_PREFIX: &str = "data:image/svg+xml;utf-8,";

/// `mfa.enroll` arguments, discriminated on `factorType` as in auth-js `MFAEnrollParams`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "factorType", rename_all = "lowercase")]
pub enum EnrollParams {
    #[serde(rename_all = "camelCase")]
    Totp {
        #[serde(default)]
        friendly_name: Option<String>,
        /// Shown by authenticator apps; the server's site host when absent.
        #[serde(default)]
        issuer: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    Phone {
        #[serde(default)]
        friendly_name: Option<String>,
        /// E.164, e.g. `+15550001234`.
        phone: String,
    },
}

impl EnrollParams {
    pub fn factor_type(&self) -> FactorType {
        match self {
            EnrollParams::Totp { .. } => FactorType::Totp,
            EnrollParams::Phone { .. } => FactorType::Phone,
        }
    }
}

/// `mfa.unenroll` arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnenrollParams {
    pub factor_id: String,
}

/// `mfa.challenge` arguments; `channel` only means something for phone factors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeParams {
    pub factor_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<Channel>,
}

/// `mfa.verify` arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyParams {
    pub factor_id: String,
    pub challenge_id: String,
    pub code: String,
}

/// `mfa.challengeAndVerify` arguments.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeAndVerifyParams {
    pub factor_id: String,
    pub code: String,
}

/// The MFA request builders. `jwt` is the session's access token; without a session supabase-js
/// still sends the request (with the anon bearer) and reports the server's refusal.
#[derive(Debug, Clone, Copy)]
pub struct Mfa<'a> {
    api: &'a AuthApi,
}

impl AuthApi {
    pub fn mfa(&self) -> Mfa<'_> {
        Mfa { api: self }
    }
}

impl Mfa<'_> {
    /// `POST /factors` with `{friendly_name, factor_type, issuer | phone}`, undefined keys dropped.
    pub fn enroll(&self, jwt: Option<&str>, params: &EnrollParams) -> HttpRequest {
        let body = match params {
            EnrollParams::Totp {
                friendly_name,
                issuer,
            } => to_json(&EnrollBody {
                friendly_name: friendly_name.as_deref(),
                factor_type: "totp",
                issuer: issuer.as_deref(),
                phone: None,
            }),
            EnrollParams::Phone {
                friendly_name,
                phone,
            } => to_json(&EnrollBody {
                friendly_name: friendly_name.as_deref(),
                factor_type: "phone",
                issuer: None,
                phone: Some(phone),
            }),
        };
        self.api
            .request(Method::Post, "factors")
            .bearer(jwt)
            .json(body)
            .build()
    }

    /// `DELETE /factors/{id}` with no body.
    pub fn unenroll(&self, jwt: Option<&str>, params: &UnenrollParams) -> HttpRequest {
        self.api
            .request(Method::Delete, &factor_path(&params.factor_id, None))
            .bearer(jwt)
            .build()
    }

    /// `POST /factors/{id}/challenge`; the body is the params object itself, as supabase-js sends
    /// it (`{"factorId"}` or `{"factorId","channel"}`; the server ignores `factorId`).
    pub fn challenge(&self, jwt: Option<&str>, params: &ChallengeParams) -> HttpRequest {
        self.api
            .request(
                Method::Post,
                &factor_path(&params.factor_id, Some("challenge")),
            )
            .bearer(jwt)
            .json(to_json(params))
            .build()
    }

    /// `POST /factors/{id}/verify` with `{challenge_id, code}`.
    pub fn verify(&self, jwt: Option<&str>, params: &VerifyParams) -> HttpRequest {
        let body = to_json(&VerifyBody {
            challenge_id: &params.challenge_id,
            code: &params.code,
        });
        self.api
            .request(
                Method::Post,
                &factor_path(&params.factor_id, Some("verify")),
            )
            .bearer(jwt)
            .json(body)
            .build()
    }
}

#[derive(Serialize)]
struct EnrollBody<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    friendly_name: Option<&'a str>,
    factor_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    issuer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    phone: Option<&'a str>,
}

#[derive(Serialize)]
struct VerifyBody<'a> {
    challenge_id: &'a str,
    code: &'a str,
}

/// A newly enrolled (unverified) factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Enrolled {
    pub id: String,
    #[serde(rename = "type")]
    pub factor_type: FactorType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friendly_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub totp: Option<TotpEnrollment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What an authenticator app needs: the QR code, the base32 secret and the otpauth URI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotpEnrollment {
    pub qr_code: String,
    pub secret: String,
    pub uri: String,
}

/// The enrol response, with the TOTP QR code turned into a `data:` URL as supabase-js does.
pub fn parse_enrolled(data: &Value, params: &EnrollParams) -> Result<Enrolled, AuthError> {
    let mut enrolled: Enrolled = parse(data, "enroll")?;
    if let (EnrollParams::Totp { .. }, FactorType::Totp, Some(totp)) =
        (params, &enrolled.factor_type, enrolled.totp.as_mut())
    {
        if !totp.qr_code.is_empty() {
            totp.qr_code.insert_str(0, QR_CODE_DATA_URL_PREFIX);
        }
    }
    Ok(enrolled)
}

/// A created challenge: answer it with [`Mfa::verify`] before `expires_at` (unix seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    #[serde(rename = "type")]
    pub factor_type: FactorType,
    #[serde(serialize_with = "js_number")]
    pub expires_at: f64,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

pub fn parse_challenge(data: &Value) -> Result<Challenge, AuthError> {
    parse(data, "challenge")
}

/// The id of the removed factor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unenrolled {
    pub id: String,
}

pub fn parse_unenrolled(data: &Value) -> Result<Unenrolled, AuthError> {
    parse(data, "unenroll")
}

/// A verify answers with a token response; the new (aal2) session is saved from it.
pub fn parse_verified(data: &Value, now: UnixTime) -> Result<Session, AuthError> {
    parse_session_response(data, now)?.require_session()
}

fn parse<T: for<'de> Deserialize<'de>>(data: &Value, call: &str) -> Result<T, AuthError> {
    T::deserialize(data).map_err(|error| AuthError::Unknown {
        message: format!("unexpected {call} response: {error}"),
    })
}

/// `listFactors`: every factor, plus the verified ones by kind.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct FactorLists {
    pub all: Vec<Factor>,
    pub totp: Vec<Factor>,
    pub phone: Vec<Factor>,
    pub webauthn: Vec<Factor>,
}

pub fn list_factors(factors: &[Factor]) -> FactorLists {
    let mut lists = FactorLists::default();
    for factor in factors {
        lists.all.push(factor.clone());
        if factor.status != FactorStatus::Verified {
            continue;
        }
        let list = match factor.factor_type {
            FactorType::Totp => &mut lists.totp,
            FactorType::Phone => &mut lists.phone,
            FactorType::Webauthn => &mut lists.webauthn,
            FactorType::Other(_) => continue,
        };
        list.push(factor.clone());
    }
    lists
}

/// `getAuthenticatorAssuranceLevel`: the token's `aal`, the level reachable with the user's
/// verified factors, and the token's `amr`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssuranceLevel {
    pub current_level: Option<String>,
    pub next_level: Option<String>,
    pub current_authentication_methods: Vec<Value>,
}

impl AssuranceLevel {
    /// What supabase-js reports without a session.
    pub fn signed_out() -> Self {
        AssuranceLevel {
            current_level: None,
            next_level: None,
            current_authentication_methods: Vec::new(),
        }
    }
}

pub fn assurance_level(claims: &JwtClaims, factors: &[Factor]) -> AssuranceLevel {
    let current_level = claims.aal.clone().filter(|aal| !aal.is_empty());
    let has_verified = factors
        .iter()
        .any(|factor| factor.status == FactorStatus::Verified);
    AssuranceLevel {
        next_level: if has_verified {
            Some("aal2".into())
        } else {
            current_level.clone()
        },
        current_level,
        current_authentication_methods: claims.amr.clone().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::requests::tests::{api, headers};
    use crate::auth::session::tests::{token_json, NOW_MS};
    use serde_json::json;

    const JWT: &str = "user.jwt";

    fn factor(id: &str, kind: &str, status: &str) -> Factor {
        serde_json::from_value(json!({
            "id": id, "factor_type": kind, "status": status,
            "created_at": "t", "updated_at": "t"
        }))
        .unwrap()
    }

    #[test]
    fn enroll_totp_drops_undefined_keys() {
        let params = EnrollParams::Totp {
            friendly_name: None,
            issuer: None,
        };
        let request = api().mfa().enroll(Some(JWT), &params);
        assert_eq!(request.method, Method::Post);
        assert_eq!(request.url, "http://127.0.0.1:54321/auth/v1/factors");
        assert_eq!(request.headers, headers("Bearer user.jwt", true));
        assert_eq!(request.body.as_deref(), Some(r#"{"factor_type":"totp"}"#));

        let params = EnrollParams::Totp {
            friendly_name: Some("my \"phone\"".into()),
            issuer: Some("geocache".into()),
        };
        assert_eq!(
            api().mfa().enroll(Some(JWT), &params).body.as_deref(),
            Some(r#"{"friendly_name":"my \"phone\"","factor_type":"totp","issuer":"geocache"}"#)
        );
    }

    #[test]
    fn enroll_phone_sends_the_number() {
        let params = EnrollParams::Phone {
            friendly_name: Some("mobile".into()),
            phone: "+15550001234".into(),
        };
        assert_eq!(
            api().mfa().enroll(Some(JWT), &params).body.as_deref(),
            Some(r#"{"friendly_name":"mobile","factor_type":"phone","phone":"+15550001234"}"#)
        );
    }

    #[test]
    fn without_a_session_the_anon_bearer_is_sent() {
        let params = EnrollParams::Totp {
            friendly_name: None,
            issuer: None,
        };
        let request = api().mfa().enroll(None, &params);
        assert_eq!(request.header("authorization"), Some("Bearer anon.key.sig"));
    }

    #[test]
    fn unenroll_deletes_the_encoded_factor_path_without_a_body() {
        let request = api().mfa().unenroll(
            Some(JWT),
            &UnenrollParams {
                factor_id: "../../user".into(),
            },
        );
        assert_eq!(request.method, Method::Delete);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/auth/v1/factors/..%2F..%2Fuser"
        );
        assert_eq!(request.headers, headers("Bearer user.jwt", true));
        assert_eq!(request.body, None);
    }

    #[test]
    fn challenge_posts_the_params_object() {
        let params = ChallengeParams {
            factor_id: "f 1".into(),
            channel: None,
        };
        let request = api().mfa().challenge(Some(JWT), &params);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/auth/v1/factors/f%201/challenge"
        );
        assert_eq!(request.headers, headers("Bearer user.jwt", true));
        assert_eq!(request.body.as_deref(), Some(r#"{"factorId":"f 1"}"#));
        for (channel, body) in [
            (Channel::Sms, r#"{"factorId":"f","channel":"sms"}"#),
            (
                Channel::Whatsapp,
                r#"{"factorId":"f","channel":"whatsapp"}"#,
            ),
        ] {
            let params = ChallengeParams {
                factor_id: "f".into(),
                channel: Some(channel),
            };
            assert_eq!(
                api().mfa().challenge(Some(JWT), &params).body.as_deref(),
                Some(body)
            );
        }
    }

    #[test]
    fn verify_posts_challenge_id_and_code() {
        let params = VerifyParams {
            factor_id: "f/1".into(),
            challenge_id: "c1".into(),
            code: "123456".into(),
        };
        let request = api().mfa().verify(Some(JWT), &params);
        assert_eq!(request.method, Method::Post);
        assert_eq!(
            request.url,
            "http://127.0.0.1:54321/auth/v1/factors/f%2F1/verify"
        );
        assert_eq!(
            request.body.as_deref(),
            Some(r#"{"challenge_id":"c1","code":"123456"}"#)
        );
    }

    #[test]
    fn params_deserialize_from_supabase_js_shapes() {
        let totp: EnrollParams =
            serde_json::from_value(json!({"factorType": "totp", "friendlyName": "a"})).unwrap();
        assert_eq!(
            totp,
            EnrollParams::Totp {
                friendly_name: Some("a".into()),
                issuer: None
            }
        );
        assert_eq!(totp.factor_type(), FactorType::Totp);
        let phone: EnrollParams =
            serde_json::from_value(json!({"factorType": "phone", "phone": "+1"})).unwrap();
        assert_eq!(phone.factor_type(), FactorType::Phone);
        for bad in [
            json!({"factorType": "webauthn"}),
            json!({"factorType": "phone"}),
            json!({"friendlyName": "x"}),
        ] {
            assert!(
                serde_json::from_value::<EnrollParams>(bad.clone()).is_err(),
                "{bad}"
            );
        }
        let challenge: ChallengeParams =
            serde_json::from_value(json!({"factorId": "f", "channel": "whatsapp"})).unwrap();
        assert_eq!(challenge.channel, Some(Channel::Whatsapp));
        assert!(serde_json::from_value::<ChallengeParams>(
            json!({"factorId": "f", "channel": "fax"})
        )
        .is_err());
        let verify: VerifyParams =
            serde_json::from_value(json!({"factorId": "f", "challengeId": "c", "code": "000000"}))
                .unwrap();
        assert_eq!(verify.code, "000000");
        assert!(
            serde_json::from_value::<ChallengeAndVerifyParams>(json!({"factorId": "f"})).is_err()
        );
    }

    #[test]
    fn totp_enrolment_gets_a_data_url_qr_code() {
        let data = json!({
            "id": "f1", "type": "totp", "friendly_name": "",
            "totp": {"qr_code": "<svg/>", "secret": "JBSWY3DPEHPK3PXP", "uri": "otpauth://totp/x"}
        });
        let params = EnrollParams::Totp {
            friendly_name: None,
            issuer: None,
        };
        let enrolled = parse_enrolled(&data, &params).unwrap();
        let totp = enrolled.totp.as_ref().unwrap();
        assert_eq!(totp.qr_code, "data:image/svg+xml;utf-8,<svg/>");
        assert_eq!(totp.secret, "JBSWY3DPEHPK3PXP");
        let mut expected = data.clone();
        expected["totp"]["qr_code"] = json!("data:image/svg+xml;utf-8,<svg/>");
        assert_eq!(serde_json::to_value(&enrolled).unwrap(), expected);
    }

    #[test]
    fn phone_enrolment_is_returned_as_sent() {
        let data = json!({"id": "f2", "type": "phone", "friendly_name": "m", "phone": "+1"});
        let params = EnrollParams::Phone {
            friendly_name: None,
            phone: "+1".into(),
        };
        let enrolled = parse_enrolled(&data, &params).unwrap();
        assert_eq!(enrolled.phone.as_deref(), Some("+1"));
        assert_eq!(serde_json::to_value(&enrolled).unwrap(), data);
    }

    #[test]
    fn unexpected_mfa_responses_are_unknown_errors() {
        let params = EnrollParams::Totp {
            friendly_name: None,
            issuer: None,
        };
        let error = parse_enrolled(&json!({"type": "totp"}), &params).unwrap_err();
        assert_eq!(error.name(), "AuthUnknownError");
        assert!(error
            .to_string()
            .starts_with("unexpected enroll response: missing field `id`"));
        assert!(parse_challenge(&json!({"id": "c", "type": "totp"})).is_err());
        assert!(parse_unenrolled(&json!({})).is_err());
    }

    #[test]
    fn challenges_and_unenrolments_parse() {
        let challenge =
            parse_challenge(&json!({"id": "c1", "type": "phone", "expires_at": 1_700_000_300}))
                .unwrap();
        assert_eq!(
            (challenge.id.as_str(), challenge.expires_at),
            ("c1", 1_700_000_300.0)
        );
        assert_eq!(challenge.factor_type, FactorType::Phone);
        assert_eq!(
            serde_json::to_string(&challenge).unwrap(),
            r#"{"id":"c1","type":"phone","expires_at":1700000300}"#
        );
        assert_eq!(
            parse_unenrolled(&json!({"id": "f1"})).unwrap(),
            Unenrolled { id: "f1".into() }
        );
    }

    #[test]
    fn verify_responses_must_be_sessions() {
        let session = parse_verified(&token_json(), NOW_MS).unwrap();
        assert_eq!(session.refresh_token, "r1");
        let error = parse_verified(&json!({"id": "x"}), NOW_MS).unwrap_err();
        assert_eq!(error.name(), "AuthInvalidTokenResponseError");
    }

    #[test]
    fn factors_are_listed_all_and_verified_by_kind() {
        let factors = [
            factor("t1", "totp", "verified"),
            factor("t2", "totp", "unverified"),
            factor("p1", "phone", "verified"),
            factor("w1", "webauthn", "verified"),
            factor("x1", "passkey", "verified"),
        ];
        let lists = list_factors(&factors);
        let ids = |list: &[Factor]| list.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&lists.all), ["t1", "t2", "p1", "w1", "x1"]);
        assert_eq!(ids(&lists.totp), ["t1"]);
        assert_eq!(ids(&lists.phone), ["p1"]);
        assert_eq!(ids(&lists.webauthn), ["w1"]);
        let empty = serde_json::to_value(list_factors(&[])).unwrap();
        assert_eq!(
            empty,
            json!({"all": [], "totp": [], "phone": [], "webauthn": []})
        );
    }

    #[test]
    fn assurance_level_follows_the_token_and_verified_factors() {
        let amr = vec![json!({"method": "password", "timestamp": 1})];
        let aal1 = JwtClaims {
            aal: Some("aal1".into()),
            amr: Some(amr.clone()),
            ..Default::default()
        };
        let level = assurance_level(&aal1, &[factor("t", "totp", "unverified")]);
        assert_eq!(
            level,
            AssuranceLevel {
                current_level: Some("aal1".into()),
                next_level: Some("aal1".into()),
                current_authentication_methods: amr.clone(),
            }
        );
        let level = assurance_level(&aal1, &[factor("t", "totp", "verified")]);
        assert_eq!(level.next_level.as_deref(), Some("aal2"));

        let level = assurance_level(&JwtClaims::default(), &[]);
        assert_eq!(level, AssuranceLevel::signed_out());
        assert_eq!(
            serde_json::to_value(AssuranceLevel::signed_out()).unwrap(),
            json!({"currentLevel": null, "nextLevel": null, "currentAuthenticationMethods": []})
        );
    }
}
