//! Times as Unix seconds: RFC 3339 text read (trusted roots) and written (messages).

use std::time::{Duration, UNIX_EPOCH};

/// Unix seconds of an RFC 3339 time (`2022-04-13T20:06:15Z`, fractions allowed); `None` for
/// anything else.
pub(super) fn parse_rfc3339(text: &str) -> Option<i64> {
    let time = humantime::parse_rfc3339(text).ok()?;
    let seconds = time.duration_since(UNIX_EPOCH).ok()?.as_secs();
    i64::try_from(seconds).ok()
}

/// `seconds` as RFC 3339, for messages.
pub(super) fn rfc3339(seconds: i64) -> String {
    match u64::try_from(seconds) {
        Ok(seconds) => {
            humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(seconds)).to_string()
        }
        Err(_) => format!("{seconds} (Unix seconds)"),
    }
}

/// Unix seconds of an X.509 time.
pub(super) fn x509(time: &x509_cert::time::Time) -> i64 {
    i64::try_from(time.to_unix_duration().as_secs()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_and_write_as_rfc3339() {
        assert_eq!(parse_rfc3339("2022-04-13T20:06:15Z"), Some(1_649_880_375));
        assert_eq!(
            parse_rfc3339("2022-12-31T23:59:59.999Z"),
            Some(1_672_531_199)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
        assert_eq!(rfc3339(1_649_880_375), "2022-04-13T20:06:15Z");
    }
}
