//! Password hashes: bcrypt, as GoTrue stores them (`$2b$<cost>$…`). Hashing is deliberately slow,
//! so it runs on the blocking pool, outside the database lock.

use crate::auth::error::AuthError;

pub async fn hash(password: String, cost: u32) -> Result<String, AuthError> {
    tokio::task::spawn_blocking(move || bcrypt::hash(password, cost))
        .await
        .map_err(AuthError::unexpected)?
        .map_err(|error| AuthError::unexpected(format!("bcrypt: {error}")))
}

/// Whether `password` matches `stored`; a malformed stored hash matches nothing.
pub async fn verify(password: String, stored: String) -> Result<bool, AuthError> {
    tokio::task::spawn_blocking(move || bcrypt::verify(password, &stored).unwrap_or(false))
        .await
        .map_err(AuthError::unexpected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_hash_verifies_only_its_password() {
        let stored = hash("correct horse".to_owned(), 4).await.unwrap();
        assert!(stored.starts_with("$2b$04$"), "{stored}");
        assert!(verify("correct horse".to_owned(), stored.clone())
            .await
            .unwrap());
        assert!(!verify("Correct horse".to_owned(), stored).await.unwrap());
        assert!(!verify("x".to_owned(), "not a hash".to_owned())
            .await
            .unwrap());
    }
}
