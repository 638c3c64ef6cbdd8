/// What the server knows of one upload, handed to validation in ``ValidationOptions/files`` so that
/// a submission naming it can be checked: is it finished, unused, and made for this input.
public struct UploadedFile: Sendable, Equatable {
    /// The upload id a submission sends as the file input's value (`upl_…`).
    public var id: String
    /// The form it was uploaded for.
    public var formID: String
    /// The input it was uploaded for, as ``FileInputRules/path`` names it (no repeat indices).
    public var field: String
    /// Its media type, as stored with it.
    public var contentType: String
    /// Its length in bytes.
    public var size: Int
    /// The SHA-256 of its bytes, in lowercase hex.
    public var sha256: String
    /// The name the client gave it, if any.
    public var filename: String?
    /// Whether every byte has arrived (a resumable upload may still be under way).
    public var isComplete: Bool
    /// Whether a stored submission holds it already.
    public var isBound: Bool

    /// An upload's facts, as the server's store holds them.
    public init(id: String, formID: String, field: String, contentType: String, size: Int, sha256: String,
                filename: String?, isComplete: Bool, isBound: Bool) {
        self.id = id
        self.formID = formID
        self.field = field
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
        self.filename = filename
        self.isComplete = isComplete
        self.isBound = isBound
    }

    /// The file as a submission's stored values hold it: `{"id", "contentType", "size", "sha256",
    /// "filename"}` (filename null when none was given).
    var storedValue: JSONValue {
        var object = JSONObject(reservingCapacity: 5)
        object.append("id", .string(id))
        object.append("contentType", .string(contentType))
        object.append("size", .number(Double(size)))
        object.append("sha256", .string(sha256))
        object.append("filename", filename.map(JSONValue.string) ?? .null)
        return .object(object)
    }
}
