/// A delivery claimed from the queue, ready to send.
public struct DeliveryJob: Sendable, Hashable {
    /// The delivery id, sent as `webhook-id`; the same on every attempt so receivers can dedupe.
    public var id: String
    /// The endpoint it goes to.
    public var endpointID: String
    /// The endpoint's URL.
    public var url: String
    /// Plaintext secrets to sign with: the current one, then the previous one while a rotation is recent.
    public var secrets: [WebhookSecret]
    /// The JSON body (see `WebhookPayload`).
    public var payload: [UInt8]
    /// The number of the attempt about to be made, from 1.
    public var attempt: Int
    /// Why the job cannot be signed (its secret does not decrypt), if so: the worker then records a
    /// failed attempt with this error instead of sending, and the retry schedule goes on as for any
    /// failure, so the row is neither sent unsigned nor stuck.
    public var signingProblem: String?

    /// Creates a job.
    public init(id: String, endpointID: String, url: String, secrets: [WebhookSecret], payload: [UInt8], attempt: Int,
                signingProblem: String? = nil) {
        self.id = id
        self.endpointID = endpointID
        self.url = url
        self.secrets = secrets
        self.payload = payload
        self.attempt = attempt
        self.signingProblem = signingProblem
    }
}
