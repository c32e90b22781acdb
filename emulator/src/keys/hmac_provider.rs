//! An HMAC-only `jsonwebtoken` crypto provider.
//!
//! jsonwebtoken 10 needs a crypto backend. Its bundled ones pull in RSA, elliptic curves and
//! Ed25519 (rust_crypto) or a C/CMake build (aws-lc-rs); the emulator only signs and verifies
//! HS256/HS384/HS512, the algorithms of a Supabase legacy JWT secret, so this provider wires
//! RustCrypto's `hmac` + `sha2` into jsonwebtoken's documented `CryptoProvider` hook.

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use jsonwebtoken::crypto::{CryptoProvider, JwkUtils, JwtSigner, JwtVerifier};
use jsonwebtoken::errors::{Error, ErrorKind};
use jsonwebtoken::signature::{Signer, Verifier};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey};
use sha2::{Sha256, Sha384, Sha512};
use std::sync::Once;

/// One HMAC signer/verifier, whatever the hash.
struct HmacKey {
    algorithm: Algorithm,
    secret: Vec<u8>,
}

impl HmacKey {
    fn new(algorithm: &Algorithm, secret: &[u8]) -> Result<Self, Error> {
        match algorithm {
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512 => Ok(HmacKey {
                algorithm: *algorithm,
                secret: secret.to_vec(),
            }),
            _ => Err(ErrorKind::InvalidAlgorithm.into()),
        }
    }

    fn mac(&self, message: &[u8]) -> Vec<u8> {
        fn digest<M: Mac + KeyInit>(secret: &[u8], message: &[u8]) -> Vec<u8> {
            // HMAC accepts keys of any length, so `new_from_slice` cannot fail here.
            let mut mac =
                <M as KeyInit>::new_from_slice(secret).expect("HMAC takes any key length");
            mac.update(message);
            mac.finalize().into_bytes().to_vec()
        }
        match self.algorithm {
            Algorithm::HS384 => digest::<Hmac<Sha384>>(&self.secret, message),
            Algorithm::HS512 => digest::<Hmac<Sha512>>(&self.secret, message),
            _ => digest::<Hmac<Sha256>>(&self.secret, message),
        }
    }
}

impl Signer<Vec<u8>> for HmacKey {
    fn try_sign(&self, message: &[u8]) -> Result<Vec<u8>, jsonwebtoken::signature::Error> {
        Ok(self.mac(message))
    }
}

impl JwtSigner for HmacKey {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

impl Verifier<Vec<u8>> for HmacKey {
    fn verify(
        &self,
        message: &[u8],
        signature: &Vec<u8>,
    ) -> Result<(), jsonwebtoken::signature::Error> {
        // Constant-time comparison through the `Mac` API.
        let verified = match self.algorithm {
            Algorithm::HS384 => verify_with::<Hmac<Sha384>>(&self.secret, message, signature),
            Algorithm::HS512 => verify_with::<Hmac<Sha512>>(&self.secret, message, signature),
            _ => verify_with::<Hmac<Sha256>>(&self.secret, message, signature),
        };
        if verified {
            Ok(())
        } else {
            Err(jsonwebtoken::signature::Error::new())
        }
    }
}

fn verify_with<M: Mac + KeyInit>(secret: &[u8], message: &[u8], signature: &[u8]) -> bool {
    match <M as KeyInit>::new_from_slice(secret) {
        Ok(mut mac) => {
            mac.update(message);
            mac.verify_slice(signature).is_ok()
        }
        Err(_) => false,
    }
}

impl JwtVerifier for HmacKey {
    fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

fn new_signer(algorithm: &Algorithm, key: &EncodingKey) -> Result<Box<dyn JwtSigner>, Error> {
    Ok(Box::new(HmacKey::new(
        algorithm,
        key.try_get_hmac_secret()?,
    )?))
}

fn new_verifier(algorithm: &Algorithm, key: &DecodingKey) -> Result<Box<dyn JwtVerifier>, Error> {
    Ok(Box::new(HmacKey::new(
        algorithm,
        key.try_get_hmac_secret()?,
    )?))
}

static HMAC_PROVIDER: CryptoProvider = CryptoProvider {
    signer_factory: new_signer,
    verifier_factory: new_verifier,
    jwk_utils: JwkUtils::new_unimplemented(),
};

/// Installs the provider for this process (idempotent; the emulator uses no other provider).
pub fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An `Err` means a provider is already installed, which is equally fine.
        let _ = HMAC_PROVIDER.install_default();
    });
}
