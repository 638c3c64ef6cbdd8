import FormEngine

/// An accepted submission as the 201 answers it and as a webhook's `data` carries it: the same
/// bytes, made once per submission.
enum AcceptedSubmissionJSON {
    /// `{"id","formId","formVersion","receivedAt","values"}`, with the values spliced in as already
    /// serialized (they are stored as that same text). Spliced rather than encoded like the
    /// other answers: this is the benchmarked submission path, and encoding would serialize the values
    /// a second time on every accepted request (and parse them back from the row on every replay).
    static func bytes(id: String, formID: String, formVersion: Int, receivedAt: String, values: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(values.count + id.utf8.count + formID.utf8.count + 96)
        out.append(contentsOf: #"{"id":"#.utf8)
        JSONValue.string(id).write(to: &out)
        out.append(contentsOf: #","formId":"#.utf8)
        JSONValue.string(formID).write(to: &out)
        out.append(contentsOf: #","formVersion":"#.utf8)
        out.append(contentsOf: String(formVersion).utf8)
        out.append(contentsOf: #","receivedAt":"#.utf8)
        JSONValue.string(receivedAt).write(to: &out)
        out.append(contentsOf: #","values":"#.utf8)
        out.append(contentsOf: values)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
