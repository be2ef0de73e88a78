//! Timestamps for logs and audit trails, without a date library.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as RFC 3339 in UTC, to the second: `2026-02-13T19:30:00Z`.
pub fn timestamp() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    format_rfc3339(seconds)
}

/// `seconds` since the Unix epoch as RFC 3339 in UTC.
pub fn format_rfc3339(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let rem = seconds % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_known_instants() {
        assert_eq!(super::format_rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::format_rfc3339(1_771_011_000), "2026-02-13T19:30:00Z");
        assert_eq!(super::format_rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }
}
