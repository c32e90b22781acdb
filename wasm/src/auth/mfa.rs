//! `auth.mfa`: the exported `Mfa` namespace and the MFA flows on the shared auth state.

use std::rc::Rc;

use geocache_core::auth::mfa::{
    self as core_mfa, parse_challenge, parse_enrolled, parse_unenrolled, parse_verified,
};
use geocache_core::auth::{
    decode_jwt_claims, expect_json, AssuranceLevel, AuthError, Challenge, ChallengeAndVerifyParams,
    ChallengeParams, EnrollParams, Enrolled, FactorLists, UnenrollParams, Unenrolled, VerifyParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::client::AuthClient;
use super::clock::now;
use super::events::AuthChangeEvent;
use super::result::{respond, NO_DATA};
use crate::error::ClientError;
use crate::js;

// The MFA flows over the shared auth state.

async fn enroll(client: &Rc<AuthClient>, params: &EnrollParams) -> Result<Enrolled, AuthError> {
    let jwt = client.session_jwt().await?;
    let request = client.api().mfa().enroll(jwt.as_deref(), params);
    parse_enrolled(
        &expect_json(client.transport().send(&request).await)?,
        params,
    )
}

async fn unenroll(
    client: &Rc<AuthClient>,
    params: &UnenrollParams,
) -> Result<Unenrolled, AuthError> {
    let jwt = client.session_jwt().await?;
    let request = client.api().mfa().unenroll(jwt.as_deref(), params);
    parse_unenrolled(&expect_json(client.transport().send(&request).await)?)
}

async fn challenge(
    client: &Rc<AuthClient>,
    params: &ChallengeParams,
) -> Result<Challenge, AuthError> {
    let jwt = client.session_jwt().await?;
    let request = client.api().mfa().challenge(jwt.as_deref(), params);
    parse_challenge(&expect_json(client.transport().send(&request).await)?)
}

/// Saves the aal2 session the server answers with (MFA_CHALLENGE_VERIFIED) and returns the
/// raw token response, as supabase-js does.
async fn verify(client: &Rc<AuthClient>, params: &VerifyParams) -> Result<Value, AuthError> {
    let jwt = client.session_jwt().await?;
    let request = client.api().mfa().verify(jwt.as_deref(), params);
    let data = expect_json(client.transport().send(&request).await)?;
    let session = parse_verified(&data, now())?;
    client.adopt_session(&session, AuthChangeEvent::MfaChallengeVerified);
    Ok(data)
}

async fn challenge_and_verify(
    client: &Rc<AuthClient>,
    params: &ChallengeAndVerifyParams,
) -> Result<Value, AuthError> {
    let challenge = challenge(
        client,
        &ChallengeParams {
            factor_id: params.factor_id.clone(),
            channel: None,
        },
    )
    .await?;
    verify(
        client,
        &VerifyParams {
            factor_id: params.factor_id.clone(),
            challenge_id: challenge.id,
            code: params.code.clone(),
        },
    )
    .await
}

/// The server's view of the user's factors (a `GET /user`).
async fn list_factors(client: &Rc<AuthClient>) -> Result<FactorLists, AuthError> {
    let user = client.get_user(None).await?;
    Ok(core_mfa::list_factors(user.factors()))
}

/// From the given token (checked against the server's user), or else from the session
/// without any request.
async fn assurance_level(
    client: &Rc<AuthClient>,
    jwt: Option<&str>,
) -> Result<AssuranceLevel, AuthError> {
    if let Some(jwt) = jwt {
        let claims = decode_jwt_claims(jwt)?;
        let user = client.get_user(Some(jwt)).await?;
        return Ok(core_mfa::assurance_level(&claims, user.factors()));
    }
    let Some(session) = client.get_session().await? else {
        return Ok(AssuranceLevel::signed_out());
    };
    let claims = decode_jwt_claims(&session.access_token)?;
    Ok(core_mfa::assurance_level(&claims, session.user.factors()))
}

/// `client.auth.mfa`: multi-factor authentication for the signed-in user.
#[wasm_bindgen]
pub struct Mfa {
    client: Rc<AuthClient>,
}

impl Mfa {
    pub fn new(client: Rc<AuthClient>) -> Self {
        Mfa { client }
    }
}

fn params<T: DeserializeOwned>(value: JsValue) -> Result<T, ClientError> {
    js::from_js(value).map_err(|error| ClientError::argument("params", error))
}

#[wasm_bindgen]
impl Mfa {
    /// Starts enrolling a TOTP or phone factor. A TOTP `qr_code` is a `data:image/svg+xml` URL.
    #[wasm_bindgen(unchecked_return_type = "AuthMFAEnrollResponse")]
    pub async fn enroll(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MFAEnrollParams")] params: JsValue,
    ) -> Result<JsValue, ClientError> {
        let params: EnrollParams = self::params(params)?;
        respond(enroll(&self.client, &params).await, NO_DATA)
    }

    /// Removes a factor.
    #[wasm_bindgen(unchecked_return_type = "AuthMFAUnenrollResponse")]
    pub async fn unenroll(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MFAUnenrollParams")] params: JsValue,
    ) -> Result<JsValue, ClientError> {
        let params: UnenrollParams = self::params(params)?;
        respond(unenroll(&self.client, &params).await, NO_DATA)
    }

    /// Creates a challenge (for a phone factor the code is sent by SMS or WhatsApp).
    #[wasm_bindgen(unchecked_return_type = "AuthMFAChallengeResponse")]
    pub async fn challenge(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MFAChallengeParams")] params: JsValue,
    ) -> Result<JsValue, ClientError> {
        let params: ChallengeParams = self::params(params)?;
        respond(challenge(&self.client, &params).await, NO_DATA)
    }

    /// Answers a challenge; on success the session becomes aal2 (MFA_CHALLENGE_VERIFIED).
    #[wasm_bindgen(unchecked_return_type = "AuthMFAVerifyResponse")]
    pub async fn verify(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MFAVerifyParams")] params: JsValue,
    ) -> Result<JsValue, ClientError> {
        let params: VerifyParams = self::params(params)?;
        respond(verify(&self.client, &params).await, NO_DATA)
    }

    /// `challenge` then `verify` with the given code.
    #[wasm_bindgen(
        js_name = challengeAndVerify,
        unchecked_return_type = "AuthMFAVerifyResponse"
    )]
    pub async fn challenge_and_verify(
        &self,
        #[wasm_bindgen(unchecked_param_type = "MFAChallengeAndVerifyParams")] params: JsValue,
    ) -> Result<JsValue, ClientError> {
        let params: ChallengeAndVerifyParams = self::params(params)?;
        respond(challenge_and_verify(&self.client, &params).await, NO_DATA)
    }

    /// All factors, plus the verified ones by kind (`GET /user`).
    #[wasm_bindgen(
        js_name = listFactors,
        unchecked_return_type = "AuthMFAListFactorsResponse"
    )]
    pub async fn list_factors(&self) -> Result<JsValue, ClientError> {
        respond(list_factors(&self.client).await, NO_DATA)
    }

    /// The session's assurance level (`aal1`/`aal2`), the level its verified factors allow,
    /// and how the user authenticated. Without `jwt` no request is made.
    #[wasm_bindgen(
        js_name = getAuthenticatorAssuranceLevel,
        unchecked_return_type = "AuthMFAGetAuthenticatorAssuranceLevelResponse"
    )]
    pub async fn get_authenticator_assurance_level(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "string")] jwt: Option<String>,
    ) -> Result<JsValue, ClientError> {
        let jwt = jwt.filter(|jwt| !jwt.is_empty());
        respond(assurance_level(&self.client, jwt.as_deref()).await, NO_DATA)
    }
}
