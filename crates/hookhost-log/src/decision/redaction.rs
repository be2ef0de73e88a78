//! Secrets taken out of a record (`[log]` `redact`, on by default): every string of the tool
//! input and the payload, and every reason, through hookhost-redact, the detector the
//! catalogue's `secrets` policy uses. A secret becomes `[REDACTED kind prefix…(N chars)]`: the
//! record says what was there and how long it was, never the secret.

use std::borrow::Cow;

use serde_json::Value;

/// Whether a string anywhere in `value` holds a secret (object keys are names, not searched).
pub(super) fn has_secret(value: &Value) -> bool {
    match value {
        Value::String(text) => !hookhost_redact::find(text).is_empty(),
        Value::Array(items) => items.iter().any(has_secret),
        Value::Object(fields) => fields.values().any(has_secret),
        _ => false,
    }
}

/// `value` with every secret in its strings redacted.
pub(super) fn redact_value(value: &mut Value) {
    match value {
        Value::String(text) => {
            if let Cow::Owned(clean) = redact(text) {
                *text = clean;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(redact_value),
        Value::Object(fields) => fields.values_mut().for_each(redact_value),
        _ => {}
    }
}

/// `text` with its secrets redacted; borrowed when it holds none.
pub(super) fn redact(text: &str) -> Cow<'_, str> {
    let (clean, findings) = hookhost_redact::redact(text);
    if findings.is_empty() {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(clean)
    }
}
