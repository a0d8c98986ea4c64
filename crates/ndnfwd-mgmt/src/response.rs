//! ControlResponse (TLV-TYPE 101): the content of the Data answering a control command.
//!
//! ```text
//! ControlResponse = CONTROL-RESPONSE-TYPE TLV-LENGTH StatusCode StatusText [ControlParameters]
//! ```
//!
//! StatusCode follows HTTP's convention: 200 success; 400 malformed or invalid parameters; 403
//! not authorized; 404 and 410 something named does not exist; 406 unsupported protocol; 409
//! conflict; 414 name too long; 501 unknown command; 5xx forwarder failures.

use ndn_packet::tlv::{self, Reader};
use ndn_packet::DecodeError;

use crate::params::ControlParameters;
use crate::records::{read_string, write_str_tlv};
use crate::tt;

/// A decoded ControlResponse.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ControlResponse {
    /// StatusCode.
    pub code: u32,
    /// StatusText.
    pub text: String,
    /// The body: the parameters as applied (on success) or the conflicting ones (409).
    pub body: Option<ControlParameters>,
}

impl ControlResponse {
    /// A response without body.
    pub fn new(code: u32, text: impl Into<String>) -> Self {
        Self {
            code,
            text: text.into(),
            body: None,
        }
    }

    /// The same response with a body.
    pub fn with_body(mut self, body: ControlParameters) -> Self {
        self.body = Some(body);
        self
    }

    /// True for status code 200.
    pub fn is_ok(&self) -> bool {
        self.code == 200
    }

    /// Decodes one whole ControlResponse TLV. A body element of another type than
    /// ControlParameters is ignored (ndn-cxx keeps it as an opaque block).
    pub fn new_checked(wire: &[u8]) -> Result<Self, DecodeError> {
        let outer = tlv::read_single(wire)?;
        if outer.typ != tt::CONTROL_RESPONSE {
            return Err(DecodeError::UnexpectedType(outer.typ));
        }
        let mut r = Reader::new(outer.value);
        let code = r
            .read_if(tt::STATUS_CODE)?
            .ok_or(DecodeError::Missing(tt::STATUS_CODE))?
            .nni()?;
        let code = u32::try_from(code).map_err(|_| DecodeError::Invalid(tt::STATUS_CODE))?;
        let text = r
            .read_if(tt::STATUS_TEXT)?
            .ok_or(DecodeError::Missing(tt::STATUS_TEXT))?;
        let text = read_string(tt::STATUS_TEXT, text.value)?;
        let body = match r.next().transpose()? {
            Some(e) if e.typ == tt::CONTROL_PARAMETERS => {
                Some(ControlParameters::from_value(e.value)?)
            }
            _ => None,
        };
        Ok(Self { code, text, body })
    }

    /// The whole ControlResponse TLV.
    pub fn encode(&self) -> Vec<u8> {
        // The body's value first, at the end of the one buffer that then holds the whole
        // response: every command's answer is encoded, so no intermediate vectors per layer.
        let mut v = Vec::with_capacity(160);
        tlv::write_nni_tlv(&mut v, tt::STATUS_CODE, u64::from(self.code));
        write_str_tlv(&mut v, tt::STATUS_TEXT, &self.text);
        if let Some(b) = &self.body {
            let start = v.len();
            b.encode_value(&mut v);
            let body = v.split_off(start);
            tlv::write_tlv(&mut v, tt::CONTROL_PARAMETERS, &body);
        }
        let mut out = Vec::with_capacity(v.len() + 4);
        tlv::write_tlv(&mut out, tt::CONTROL_RESPONSE, &v);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use ndn_packet::Name;

    #[test]
    fn matches_python_ndn_bytes() {
        let r = ControlResponse::new(200, "OK").with_body(ControlParameters {
            name: Some(Name::from_uri("/a/b").unwrap()),
            face_id: Some(300),
            origin: Some(0),
            cost: Some(10),
            flags: Some(1),
            ..Default::default()
        });
        assert_eq!(r.encode(), fixtures::CR_OK);
        assert_eq!(ControlResponse::new_checked(&fixtures::CR_OK), Ok(r));
    }

    #[test]
    fn rejects_malformed() {
        let no_text = [101, 3, 102, 1, 200];
        assert_eq!(
            ControlResponse::new_checked(&no_text),
            Err(DecodeError::Missing(tt::STATUS_TEXT))
        );
        let big_code = [101, 11, 102, 5, 1, 2, 3, 4, 5, 103, 0, 0, 0];
        assert!(ControlResponse::new_checked(&big_code).is_err());
        let huge = [101, 12, 102, 8, 1, 0, 0, 0, 0, 0, 0, 0, 103, 0];
        assert!(ControlResponse::new_checked(&huge).is_err());
        // Opaque body of another type is ignored.
        let other = [101, 7, 102, 1, 200, 103, 0, 200, 0];
        assert_eq!(
            ControlResponse::new_checked(&other),
            Ok(ControlResponse::new(200, ""))
        );
    }
}
