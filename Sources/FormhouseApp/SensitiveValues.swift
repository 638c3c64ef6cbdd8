import Crypto
import FormEngine
import FormStore
import Foundation
import Webhooks

/// Keeps the values of sensitive inputs (``FormEngine/FormDefinition/sensitiveInputPaths``)
/// encrypted at rest, so that a database dump alone does not hand them out (docs/operations.md,
/// "How password values are treated").
///
/// A sealed value takes the value's place in the stored JSON as `{"$sealed":"v1.<base64>"}`, the
/// base64 of nonce, ciphertext and tag (ChaCha20-Poly1305) of the value's JSON text, under a key
/// derived from the server's secret key. Whole texts (a raw body, a webhook payload, a draft's
/// values) are sealed the same way, the object then standing for all of it. The associated data
/// names the part and its row (`value:sub_…`, `raw-body:sub_…`, `webhook-payload:sub_…`), so a
/// sealed value copied to another row, or to another column, does not open.
struct SensitiveValues: Sendable {
    /// What a sealed text is, which its associated data names.
    enum Part: String, Sendable {
        /// An input's value, or a draft's values.
        case value
        /// A submission's body as sent.
        case rawBody = "raw-body"
        /// A webhook payload waiting in the outbox; its row id is the submission's.
        case webhookPayload = "webhook-payload"
    }

    private static let member = "$sealed"
    private static let version = "v1."
    /// `{"$sealed":"v1.` and `"}`: the bytes around the base64 of a sealed text.
    private static let head = Array(#"{"$sealed":"v1."#.utf8)
    private static let tail = Array(#""}"#.utf8)

    private let key: SymmetricKey
    /// Keys the digests of request bodies that idempotency compares (``bodyDigest(_:)``).
    private let digestKey: SymmetricKey

    init(secrets: SecretBox) {
        key = secrets.derivedKey(for: "sensitive-values")
        digestKey = secrets.derivedKey(for: "body-digest")
    }

    /// The digest kept of a body sent with an idempotency key, `hmac-sha256:<hex>`. Keyed, because the
    /// body holds any sensitive values in clear and the digest is stored in clear: a plain hash of a
    /// body whose other values the database shows would let a short password be guessed offline.
    func bodyDigest(_ body: [UInt8]) -> String {
        Self.digestPrefix + Hex.encode(HMAC<SHA256>.authenticationCode(for: body, using: digestKey))
    }

    /// Whether `body` is the body whose digest was stored: a keyed one, or the plain SHA-256 hex that
    /// rows stored before keyed digests hold.
    func isBody(_ body: [UInt8], of stored: String?) -> Bool {
        guard let stored else { return false }
        return stored.hasPrefix(Self.digestPrefix) ? stored == bodyDigest(body) : stored == SubmissionService.hash(body)
    }

    private static let digestPrefix = "hmac-sha256:"

    /// `values` with the value of each sensitive input of `definition` sealed for row `rowID`.
    func seal(_ values: JSONValue, rowID: String, definition: FormDefinition) throws -> JSONValue {
        try definition.mappingSensitiveValues(in: values) { value in
            .object(Self.sealedObject(try seal(value.serialized(), .value, rowID: rowID)))
        }
    }

    /// `values` with each sealed value of a sensitive input of `definition` opened; a value stored
    /// before its input was sensitive is in clear and stays as it is. Throws
    /// ``SealedValueUnreadable`` when a sealed value does not open for `rowID` with this key.
    func open(_ values: JSONValue, rowID: String, definition: FormDefinition) throws -> JSONValue {
        try definition.mappingSensitiveValues(in: values) { value in
            guard let sealed = Self.sealedText(value) else { return value }
            let plain = try open(sealed, .value, rowID: rowID)
            guard let opened = try? JSONValue(parsing: plain) else { throw SealedValueUnreadable(part: .value, rowID: rowID) }
            return opened
        }
    }

    /// `values` without the sensitive inputs of `definition`, sealed or not: their keys are left out.
    static func redacted(_ values: JSONValue, definition: FormDefinition) -> JSONValue {
        definition.mappingSensitiveValues(in: values) { _ in nil }
    }

    /// A whole text, sealed: the bytes of `{"$sealed":"v1.<base64>"}`.
    func sealed(_ bytes: [UInt8], _ part: Part, rowID: String) throws -> [UInt8] {
        let text = try seal(bytes, part, rowID: rowID)
        return Self.head + Array(text.dropFirst(Self.version.count).utf8) + Self.tail
    }

    /// The text that ``sealed(_:_:rowID:)`` sealed, or `bytes` themselves when they are not sealed.
    func opened(_ bytes: [UInt8], _ part: Part, rowID: String) throws -> [UInt8] {
        try openedIfSealed(bytes, part, rowID: rowID) ?? bytes
    }

    /// The text that ``sealed(_:_:rowID:)`` sealed, or nil when `bytes` are not sealed: for a caller
    /// that acts on which it was, without looking at the bytes twice.
    func openedIfSealed(_ bytes: [UInt8], _ part: Part, rowID: String) throws -> [UInt8]? {
        guard Self.isSealed(bytes) else { return nil }
        let base64 = bytes.dropFirst(Self.head.count).dropLast(Self.tail.count)
        return try open(Self.version + String(decoding: base64, as: UTF8.self), part, rowID: rowID)
    }

    /// Whether `bytes` are a sealed text. No body a submitter could have stored looks so: a body
    /// with no member but `$sealed` has no values and is refused.
    static func isSealed(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count > head.count + tail.count, bytes.starts(with: head), bytes.reversed().starts(with: tail.reversed()) else {
            return false
        }
        return bytes.dropFirst(head.count).dropLast(tail.count).allSatisfy(isBase64)
    }

    /// Whether a stored values text may hold a sealed value: a cheap test that spares a definition
    /// lookup for the rows that cannot (a submitted string holding these bytes is escaped: `{\"$sealed\"`).
    static func mayHoldSealedValues(_ text: String) -> Bool {
        text.contains(#"{"$sealed":"#)
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
    }

    private static func sealedObject(_ text: String) -> JSONObject {
        var object = JSONObject()
        object[member] = .string(text)
        return object
    }

    /// The `v1.…` text of a sealed value, or nil for any other value.
    private static func sealedText(_ value: JSONValue) -> String? {
        guard case .object(let object) = value, object.count == 1, case .string(let text)? = object[member],
              text.hasPrefix(version) else { return nil }
        return text
    }

    private func seal(_ plain: [UInt8], _ part: Part, rowID: String) throws -> String {
        let box = try ChaChaPoly.seal(plain, using: key, authenticating: Self.context(part, rowID))
        return Self.version + box.combined.base64EncodedString()
    }

    private func open(_ sealed: String, _ part: Part, rowID: String) throws -> [UInt8] {
        guard let combined = Data(base64Encoded: String(sealed.dropFirst(Self.version.count))),
              let box = try? ChaChaPoly.SealedBox(combined: combined),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: Self.context(part, rowID))
        else {
            throw SealedValueUnreadable(part: part, rowID: rowID)
        }
        return Array(plain)
    }

    private static func context(_ part: Part, _ rowID: String) -> [UInt8] {
        Array((part.rawValue + ":" + rowID).utf8)
    }
}

/// A sealed value that does not open with this server's key for its row: the key was changed (or
/// lost), or the sealed value was copied from another row. It names the row, never a value.
struct SealedValueUnreadable: Error, CustomStringConvertible {
    var part: SensitiveValues.Part
    var rowID: String

    var description: String {
        "A sealed \(part.rawValue) of \(rowID) does not decrypt with this server's key for that row "
            + "(was secret.key or FORMHOUSE_SECRET_KEY changed, or the value copied from another row?)."
    }
}
