//! The JSON responses every route answers with (OpenAI-style errors included), and the
//! largest request body a route reads.

use http::{HeaderValue, Response, StatusCode, header};

use crate::body::SimBody;
use crate::openai::error_body;

/// Largest request body accepted.
pub(crate) const MAX_BODY_BYTES: usize = 64 << 20;

/// A JSON response.
pub(crate) fn json(status: StatusCode, body: impl Into<bytes::Bytes>) -> Response<SimBody> {
    let mut r = Response::new(SimBody::full(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

/// An OpenAI-style error response; the type follows the status like vLLM's.
pub(crate) fn error(status: StatusCode, message: &str) -> Response<SimBody> {
    let kind = match status {
        StatusCode::BAD_REQUEST => "BadRequestError",
        StatusCode::NOT_FOUND => "NotFoundError",
        StatusCode::METHOD_NOT_ALLOWED => "MethodNotAllowed",
        StatusCode::TOO_MANY_REQUESTS => "RateLimitError",
        _ => "InternalServerError",
    };
    json(status, error_body(message, kind, status.as_u16()))
}
