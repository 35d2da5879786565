//! Small parsers and validators for text input.

/// Parses a TCP/UDP port number: ASCII digits only (no sign, no spaces), value in `1..=65535`.
pub fn parse_port(s: &str) -> Result<u16, String> {
    if s.is_empty() {
        return Err("empty port".to_string());
    }
    if !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("port {s:?} is not all digits"));
    }
    let n: u32 = match s.parse() {
        Ok(n) => n,
        Err(_) => return Err(format!("port {s:?} is out of range")),
    };
    if n == 0 || n > 65535 {
        return Err(format!("port {n} is out of range 1..=65535"));
    }
    Ok(n as u16)
}

/// A deliberately simple e-mail check: exactly one '@', a non-empty local part before it, and a
/// domain after it containing a '.' that is neither its first nor its last character.
/// No whitespace anywhere.
pub fn is_valid_email(s: &str) -> bool {
    if s.chars().any(char::is_whitespace) {
        return false;
    }
    let mut parts = s.split('@');
    let (local, domain) = match (parts.next(), parts.next(), parts.next()) {
        (Some(local), Some(domain), None) => (local, domain),
        _ => return false,
    };
    if local.is_empty() || domain.is_empty() {
        return false;
    }
    match (domain.find('.'), domain.rfind('.')) {
        (Some(first), Some(last)) => first > 0 && last < domain.len() - 1,
        _ => false,
    }
}

/// Parses a `MAJOR.MINOR.PATCH` version such as `"1.2.3"`: exactly three dot-separated parts,
/// each non-empty ASCII digits fitting in a `u32`. No leading zeros except for `0` itself.
pub fn parse_version(s: &str) -> Option<(u32, u32, u32)> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 3 {
        return None;
    }
    let mut nums = [0u32; 3];
    for (slot, part) in nums.iter_mut().zip(&parts) {
        *slot = parse_component(part)?;
    }
    Some((nums[0], nums[1], nums[2]))
}

/// One version component: non-empty digits, no leading zero unless it is exactly "0".
fn parse_component(part: &str) -> Option<u32> {
    if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if part.len() > 1 && part.starts_with('0') {
        return None;
    }
    part.parse().ok()
}

#[cfg(test)]
mod tests {
    // Gaps left on purpose (for abex to find):
    // - parse_port: no test of 65535 / 65536 (upper bound), nor of "0" (lower bound); no overflow
    //   past u32.
    // - is_valid_email: no domain with a leading or trailing '.' ("a@.com", "a@b."), no whitespace.
    // - parse_version: no leading-zero component ("01.2.3"), no four-part version, no empty part.
    use super::*;

    #[test]
    fn ports() {
        assert_eq!(parse_port("80"), Ok(80));
        assert_eq!(parse_port("8080"), Ok(8080));
        assert!(parse_port("").is_err());
        assert!(parse_port("http").is_err());
        assert!(parse_port("-1").is_err());
    }

    #[test]
    fn emails() {
        assert!(is_valid_email("ada@example.com"));
        assert!(!is_valid_email("ada.example.com"));
        assert!(!is_valid_email("@example.com"));
        assert!(!is_valid_email("ada@@example.com"));
        assert!(!is_valid_email("ada@localhost"));
    }

    #[test]
    fn versions() {
        assert_eq!(parse_version("1.2.3"), Some((1, 2, 3)));
        assert_eq!(parse_version("0.10.0"), Some((0, 10, 0)));
        assert_eq!(parse_version("1.2"), None);
        assert_eq!(parse_version("1.x.3"), None);
    }
}
