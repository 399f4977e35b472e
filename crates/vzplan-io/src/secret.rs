//! Keeping secrets out of messages: a URL may carry credentials (userinfo) or a signature (a
//! presigned S3/GCS URL, an Azure SAS token); every message that shows a URL the user gave shows
//! [`redact`]ed text, so that CI logs never keep the secret.

/// What replaces a secret.
pub const REDACTED: &str = "REDACTED";

/// The URL with its userinfo replaced by `***` and every query-parameter value and the fragment
/// replaced by `REDACTED` (query values are redacted whatever their name: signature parameters
/// differ between clouds, and an unknown one must not leak). Text without `://` is returned as is.
pub fn redact(url: &str) -> String {
    let Some(sep) = url.find("://") else {
        return url.to_string();
    };
    let (scheme, rest) = url.split_at(sep + 3);
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(auth_end);
    let mut out = String::with_capacity(url.len());
    out.push_str(scheme);
    match authority.rfind('@') {
        Some(at) => {
            out.push_str("***");
            out.push_str(&authority[at..]);
        }
        None => out.push_str(authority),
    }
    let (before_frag, frag) = match tail.find('#') {
        Some(i) => (&tail[..i], true),
        None => (tail, false),
    };
    match before_frag.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            let params: Vec<String> = query
                .split('&')
                .map(|kv| match kv.split_once('=') {
                    Some((k, v)) if !v.is_empty() => format!("{k}={REDACTED}"),
                    _ => kv.to_string(),
                })
                .collect();
            out.push_str(&params.join("&"));
        }
        None => out.push_str(before_frag),
    }
    if frag {
        out.push('#');
        out.push_str(REDACTED);
    }
    out
}

/// Whether a URL carries a secret [`redact`] would hide (userinfo, a query string or a fragment).
pub fn has_secret(url: &str) -> bool {
    redact(url) != url
}

/// Every URL inside a message redacted (whitespace-separated words containing `://`): the last
/// line of defence for messages built from text that did not go through [`redact`].
pub fn redact_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let ws = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(ws);
        match word.find("://") {
            Some(i) => {
                // Back up over the scheme's characters: `"s3://…` keeps its quote.
                let start = word[..i]
                    .char_indices()
                    .rev()
                    .find(|(_, c)| !(c.is_ascii_alphanumeric() || "+.-".contains(*c)))
                    .map_or(0, |(j, c)| j + c.len_utf8());
                out.push_str(&word[..start]);
                out.push_str(&redact(&word[start..]));
            }
            None => out.push_str(word),
        }
        let sp = tail
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(tail.len());
        out.push_str(&tail[..sp]);
        rest = &tail[sp..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_and_signatures_are_redacted() {
        assert_eq!(
            redact("s3://AKIAEXAMPLE:s3cr3t@bucket/a/x.nc"),
            "s3://***@bucket/a/x.nc"
        );
        let signed = "https://b.s3.amazonaws.com/x.nc?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=abc&x-id=GetObject";
        let r = redact(signed);
        assert!(!r.contains("AKIA") && !r.contains("abc"), "{r}");
        assert!(r.starts_with("https://b.s3.amazonaws.com/x.nc?X-Amz-Credential=REDACTED&"));
        let sas = redact("az://c/x.nc?sv=2022-11-02&se=2030&sig=S3CRET%3D");
        assert!(!sas.contains("S3CRET"), "{sas}");
        assert_eq!(redact("gs://b/x.nc#token=t0k"), "gs://b/x.nc#REDACTED");
        assert_eq!(redact("s3://bucket/plain.nc"), "s3://bucket/plain.nc");
        assert_eq!(redact("/local/path?.nc"), "/local/path?.nc");
        assert!(has_secret("https://u:p@h/x") && !has_secret("https://h/x"));
    }

    #[test]
    fn urls_inside_messages_are_redacted() {
        let m = "\"s3://AKIA:SECRET@b/x.nc\": refused\n  https://h/x?token=T then s3://b/ok.nc";
        let r = redact_text(m);
        assert_eq!(
            r,
            "\"s3://***@b/x.nc\": refused\n  https://h/x?token=REDACTED then s3://b/ok.nc"
        );
        assert_eq!(redact_text("«s3://u:p@b/x»"), "«s3://***@b/x»");
    }
}
