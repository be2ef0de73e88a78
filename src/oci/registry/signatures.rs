//! STUB (replaced by the cosign branch).
use super::{RegistryClient, RegistryError};
use crate::bundle::cosign::CosignSignature;
use crate::source::reference::{Digest, OciReference};
impl RegistryClient {
    pub async fn signatures(&self, _r: &OciReference, _m: &Digest) -> Result<Vec<CosignSignature>, RegistryError> { todo!() }
    pub async fn manifest_bytes(&self, _r: &OciReference, _m: &Digest) -> Result<Vec<u8>, RegistryError> { todo!() }
}
