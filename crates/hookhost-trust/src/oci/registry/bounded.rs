//! GETs whose answer may not exceed a size: what the signature reader fetches from a registry
//! it does not trust with its memory. oci-client reads a whole manifest into memory whatever
//! its size; a registry (or anything between it and us) could answer a signature tag with a
//! gigabyte. Here the `Content-Length` is checked first and the body is read chunk by chunk,
//! stopping at the limit. Authentication is oci-client's: its token for the repository (or
//! the basic credentials), so that this path logs in exactly as pushes and pulls do.

use std::time::Duration;

use oci_client::RegistryOperation;
use oci_client::errors::OciDistributionError;
use oci_client::secrets::RegistryAuth;

use super::Session;
use super::error::{Attempt, RegistryError};

/// The answer to a bounded GET.
pub(super) enum Answer {
    /// 200: the body, at most the limit.
    Body(Vec<u8>),
    /// 404 (or, for an API the registry lacks, 400 / 405): nothing there.
    Missing,
}

/// GETs `{scheme}://{registry}/v2/{repository}/{path}` with `accept`, reading at most `limit`
/// bytes of the body.
pub(super) async fn get(
    session: &Session,
    target: &oci_client::Reference,
    plain_http: bool,
    path: &str,
    accept: &str,
    limit: u64,
    attempt: &Attempt<'_>,
) -> Result<Answer, RegistryError> {
    let registry = target.resolve_registry();
    let url = format!(
        "{}://{registry}/v2/{}/{path}",
        if plain_http { "http" } else { "https" },
        target.repository()
    );
    let token = session
        .client
        .auth(target, &session.credentials.auth, RegistryOperation::Pull)
        .await
        .map_err(|e| attempt.classify(e))?;
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(Duration::from_secs(60))
        .user_agent(concat!("hookhost/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| attempt.classify(OciDistributionError::RequestError(e)))?;
    let mut request = http.get(&url).header("Accept", accept);
    request = match (token, &session.credentials.auth) {
        (Some(token), _) => request.bearer_auth(token),
        (None, RegistryAuth::Basic(user, password)) => request.basic_auth(user, Some(password)),
        (None, RegistryAuth::Bearer(token)) => request.bearer_auth(token),
        (None, RegistryAuth::Anonymous) => request,
    };
    let mut response = request
        .send()
        .await
        .map_err(|e| attempt.classify(OciDistributionError::RequestError(e)))?;
    let status = response.status().as_u16();
    match status {
        200 => {}
        404 => return Ok(Answer::Missing),
        _ => {
            let message = read(&mut response, 4096, attempt)
                .await
                .map(|body| String::from_utf8_lossy(&body).into_owned())
                .unwrap_or_default();
            return Err(attempt.classify(OciDistributionError::ServerError {
                code: status,
                url,
                message,
            }));
        }
    }
    if let Some(length) = response.content_length()
        && length > limit
    {
        return Err(attempt.too_large(limit));
    }
    read(&mut response, limit, attempt).await.map(Answer::Body)
}

/// The body, or an error once it passes `limit` bytes.
async fn read(
    response: &mut reqwest::Response,
    limit: u64,
    attempt: &Attempt<'_>,
) -> Result<Vec<u8>, RegistryError> {
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| attempt.classify(OciDistributionError::RequestError(e)))?
    {
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(attempt.too_large(limit));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
