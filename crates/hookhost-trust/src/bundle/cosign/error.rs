//! Why a cosign key, signature or payload was refused: one variant per thing a user does
//! something different about.

/// Why a key, a signature or a payload was refused. Each message says what is wrong and what
/// to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CosignError {
    /// The text is not a key hookhost can use (not PEM, another algorithm, corrupted).
    #[error("is not a usable cosign key: {0}")]
    InvalidKey(String),
    /// The encrypted private key does not open with the password given.
    #[error(
        "the password does not decrypt this cosign private key: give the password it was \
         written with (cosign reads COSIGN_PASSWORD; hookhost the variable --password-env names)"
    )]
    WrongPassword,
    /// The signature was not made by this key over this payload.
    #[error(
        "the cosign signature does not verify with this public key: it was made with another \
         key, or its payload was changed after signing; check that the trusted key is the \
         signer's cosign.pub"
    )]
    BadSignature,
    /// A valid signature, for another manifest.
    #[error(
        "the cosign signature vouches for manifest {signed}, not for {expected}: it was made \
         for another artefact (or copied from one); have this artefact signed \
         (`hookhost sign --oci REF --key KEY`)"
    )]
    WrongDigest {
        /// The digest the payload names.
        signed: String,
        /// The digest of the manifest being checked.
        expected: String,
    },
    /// A valid signature, for the same manifest in another repository.
    #[error(
        "the cosign signature is for repository {signed}, not {expected}: it was made where \
         the artefact lived before it was copied; have it signed again in {expected}"
    )]
    WrongRepository {
        /// The repository the payload names (its `docker-reference` without tag or digest).
        signed: String,
        /// The repository being checked.
        expected: String,
    },
    /// The payload is not a cosign simple-signing payload.
    #[error("the cosign signature's payload is not a simple-signing payload hookhost reads: {0}")]
    MalformedPayload(String),
}
