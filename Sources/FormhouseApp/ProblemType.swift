/// Every kind of problem the API answers with: its `type` URI's last segment, status and title.
///
/// Clients branch on the `type` (RFC 9457 §3.1.1), so the set is closed and each value stable; the
/// HTTP layer's own refusals (`method-not-allowed`, `content-too-large`, …) are named after their
/// status by the server and are not listed here.
enum ProblemType: String, CaseIterable, Sendable {
    case validationFailed = "validation-failed"
    case invalidDefinition = "invalid-definition"
    case malformedSubmission = "malformed-submission"
    case submissionTooLarge = "submission-too-large"
    case invalidSubmissionShape = "invalid-submission-shape"
    case invalidParameter = "invalid-parameter"
    case invalidCursor = "invalid-cursor"
    case invalidBody = "invalid-body"
    case invalidIdempotencyKey = "invalid-idempotency-key"
    case unknownProfile = "unknown-profile"
    case unauthorized
    case forbidden
    case notFound = "not-found"
    case unsupportedMediaType = "unsupported-media-type"
    case conflict
    case formExists = "form-exists"
    case profileTooLarge = "profile-too-large"
    case unknownFormVersion = "unknown-form-version"
    case idempotencyInFlight = "idempotency-in-flight"
    case idempotencyKeyReused = "idempotency-key-reused"
    case preconditionFailed = "precondition-failed"
    case invalidWebhookURL = "invalid-webhook-url"
    case tooManyWebhooks = "too-many-webhooks"
    case deliveryInFlight = "delivery-in-flight"
    case endpointDisabled = "endpoint-disabled"
    case rateLimited = "rate-limited"
    case unavailable
    case fileTooLarge = "file-too-large"
    case insufficientStorage = "insufficient-storage"
    case tooManyUploads = "too-many-uploads"
    case uploadOffsetMismatch = "upload-offset-mismatch"
    case uploadBusy = "upload-busy"
    case uploadExpired = "upload-expired"
    case tusVersionUnsupported = "tus-version-unsupported"
    case fileLinkInvalid = "file-link-invalid"
    case fileLinkExpired = "file-link-expired"
    case profileNeedsFiles = "profile-needs-files"
    case draftSubmitted = "draft-submitted"
    case draftRevisionLimit = "draft-revision-limit"
    case draftTooLarge = "draft-too-large"
    case tooManyDrafts = "too-many-drafts"

    /// Where every type URI starts; the HTTP server names its own problems under it too.
    static let base = "https://formhouse.dev/problems/"

    /// The `type` member: ``base`` and the raw value.
    var uri: String { Self.base + rawValue }

    var status: Int {
        switch self {
        case .malformedSubmission, .submissionTooLarge, .invalidSubmissionShape, .invalidParameter, .invalidCursor,
             .invalidBody, .invalidIdempotencyKey, .unknownProfile, .draftTooLarge: 400
        case .unauthorized: 401
        case .notFound: 404
        case .forbidden, .fileLinkInvalid: 403
        case .conflict, .formExists, .profileTooLarge, .unknownFormVersion, .idempotencyInFlight, .tooManyWebhooks,
             .deliveryInFlight, .endpointDisabled, .uploadOffsetMismatch, .uploadBusy, .profileNeedsFiles, .draftSubmitted,
             .draftRevisionLimit: 409
        case .uploadExpired, .fileLinkExpired: 410
        case .preconditionFailed, .tusVersionUnsupported: 412
        case .fileTooLarge: 413
        case .unsupportedMediaType: 415
        case .validationFailed, .invalidDefinition, .idempotencyKeyReused, .invalidWebhookURL: 422
        case .rateLimited, .tooManyUploads, .tooManyDrafts: 429
        case .unavailable: 503
        case .insufficientStorage: 507
        }
    }

    /// The `title`: the same for every problem of the type (RFC 9457 §3.1.3); `detail` says what happened.
    var title: String {
        switch self {
        case .validationFailed: "Submission is invalid"
        case .invalidDefinition: "Form definition is invalid"
        case .malformedSubmission, .submissionTooLarge, .invalidSubmissionShape, .invalidParameter, .invalidCursor,
             .invalidBody, .invalidIdempotencyKey, .unknownProfile: "Bad Request"
        case .unauthorized: "Unauthorized"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .unsupportedMediaType: "Unsupported Media Type"
        case .conflict: "Conflict"
        case .formExists: "Form exists"
        case .profileTooLarge: "Profile too large"
        case .unknownFormVersion: "Unknown form version"
        case .idempotencyInFlight: "Request in progress"
        case .idempotencyKeyReused: "Idempotency-Key reused"
        case .preconditionFailed: "Precondition Failed"
        case .invalidWebhookURL: "Webhook URL refused"
        case .tooManyWebhooks: "Too many webhooks"
        case .deliveryInFlight: "Delivery being sent"
        case .endpointDisabled: "Endpoint disabled"
        case .rateLimited: "Too Many Requests"
        case .unavailable: "Service Unavailable"
        case .fileTooLarge: "File too large"
        case .insufficientStorage: "Insufficient Storage"
        case .tooManyUploads: "Too many uploads"
        case .uploadOffsetMismatch: "Upload offset mismatch"
        case .uploadBusy: "Upload busy"
        case .uploadExpired: "Upload expired"
        case .tusVersionUnsupported: "tus version unsupported"
        case .fileLinkInvalid: "File link invalid"
        case .fileLinkExpired: "File link expired"
        case .profileNeedsFiles: "Profile cannot hold the form's files"
        case .draftSubmitted: "Draft submitted"
        case .draftRevisionLimit: "Draft has too many revisions"
        case .draftTooLarge: "Draft too large"
        case .tooManyDrafts: "Too many drafts"
        }
    }
}
