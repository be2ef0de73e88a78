//! STUB (replaced by the cosign branch).
use crate::source::reference::Digest;
#[derive(Debug, Clone)]
pub struct CosignPublicKey;
impl CosignPublicKey {
    pub fn from_pem(_text: &str) -> Result<CosignPublicKey, CosignError> { todo!() }
    pub fn key_id(&self) -> String { todo!() }
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CosignSignature { pub payload: Vec<u8>, pub signature: String }
pub fn verify(_key: &CosignPublicKey, _signature: &CosignSignature, _manifest: &Digest, _repository: &str) -> Result<(), CosignError> { todo!() }
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CosignError {
    #[error("x")] InvalidKey(String),
    #[error("x")] BadSignature,
    #[error("x")] WrongDigest { signed: String, expected: String },
    #[error("x")] WrongRepository { signed: String, expected: String },
    #[error("x")] MalformedPayload(String),
}
