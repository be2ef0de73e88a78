//! Why a keyless signature was refused: one variant per thing a user does something different
//! about (another identity, another CA, a broken log proof, another artefact).

/// Why a keyless (Sigstore) signature, a trusted root or an identity was refused. Each message
/// says what is wrong and, where there is one, what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeylessError {
    /// The trusted root file cannot be used.
    #[error(
        "is not a usable Sigstore trusted root: {0} (the trusted_root.json of cosign's TUF \
         cache, ~/.sigstore/root/, or of sigstore's root-signing repository)"
    )]
    InvalidRoot(String),
    /// The signature's material (certificate, bundle, log entry) cannot be read.
    #[error("cannot be read as a keyless signature: {0}")]
    Malformed(String),
    /// A key hookhost cannot verify with (not ECDSA P-256 or P-384).
    #[error("uses a key hookhost cannot verify with: {0}")]
    UnsupportedKey(String),
    /// The signature was not made by the certificate's key over what it signs.
    #[error(
        "its signature does not verify with its certificate's key: what it signs was changed \
         after signing (tampered), or the signature was made with another key"
    )]
    BadSignature,
    /// The certificate does not chain to a Fulcio CA of the trusted root.
    #[error(
        "its certificate (issued by {issuer}) does not chain to a Fulcio CA of the trusted \
         root: {reason}; it was issued by another Sigstore instance or by a CA the trusted root \
         does not hold"
    )]
    UntrustedCa {
        /// The certificate's issuer name.
        issuer: String,
        /// What failed.
        reason: String,
    },
    /// The certificate (or its CA) was not valid when the log recorded the signature.
    #[error(
        "{what} was valid from {not_before} to {not_after}, and the transparency log recorded \
         the signature at {signed_at}: it was expired (or not yet valid) at signing time"
    )]
    NotValidAtSigning {
        /// "its certificate", "the Fulcio CA that issued it", ...
        what: String,
        /// Start of validity (RFC 3339).
        not_before: String,
        /// End of validity (RFC 3339).
        not_after: String,
        /// The log's integrated time (RFC 3339).
        signed_at: String,
    },
    /// The transparency-log proof is missing or does not verify.
    #[error("its transparency-log proof does not verify: {0}")]
    BadLogProof(String),
    /// The certificate's Signed Certificate Timestamps cannot be verified.
    #[error("its certificate's transparency (SCT) does not verify: {0}")]
    BadSct(String),
    /// The certificate's subject is not the identity the trust entry names.
    #[error("its certificate is for {found}, not for {expected} (another identity signed it)")]
    WrongIdentity {
        /// The certificate's subject alternative names.
        found: String,
        /// What the trust entry accepts.
        expected: String,
    },
    /// The certificate's OIDC issuer is not the one the trust entry names.
    #[error(
        "its certificate's OIDC issuer is {found}, not {expected} (the identity was vouched for \
         by another identity provider)"
    )]
    WrongIssuer {
        /// The certificate's issuer extension, or "absent".
        found: String,
        /// What the trust entry accepts.
        expected: String,
    },
    /// A valid signature, for another artefact.
    #[error(
        "it vouches for {signed}, not for {expected}: it was made for another artefact (or \
         copied from one)"
    )]
    WrongDigest {
        /// What the signature vouches for.
        signed: String,
        /// The digest of the artefact being checked.
        expected: String,
    },
    /// A valid signature, for the same manifest in another repository.
    #[error(
        "it is for repository {signed}, not {expected}: it was made where the artefact lived \
         before it was copied; have it signed again in {expected}"
    )]
    WrongRepository {
        /// The repository the payload names.
        signed: String,
        /// The repository being checked.
        expected: String,
    },
}
