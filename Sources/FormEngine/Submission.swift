/// A submission reduced to one nested values object, whatever shape it arrived in: a Formworks
/// `FWFormSnapshot`, its short form (`id` and `content` per component), or `{"values": {...}}`.
public struct Submission: Sendable {
    /// The `formVersion` the client says it rendered, if any.
    public var formVersion: Int?
    /// The submitted values, nested by key path (`{"address": {"line1": ...}}`).
    public var values: JSONObject

    /// Parses any of the three shapes: a full FWFormSnapshot, a short one (`id`, `content`), or
    /// `{"values": {...}}`. Only `id` and `content` are read from snapshot components; the rest of
    /// each component is checked as JSON and skipped.
    public init(json bytes: [UInt8], limits: SubmissionLimits = .init()) throws(SubmissionError) {
        let body: SubmissionBody?
        do {
            body = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                var parser = JSONParser(bytes: buffer, maxDepth: limits.maxDepth)
                return try parser.readSubmissionBody()
            }
            if body == nil { _ = try JSONValue(parsing: bytes, limits: JSONLimits(maxDepth: limits.maxDepth)) }
        } catch where error.code == .tooDeep {
            throw SubmissionError(code: .tooLarge, message: "The body nests deeper than \(limits.maxDepth) levels.", offset: error.offset)
        } catch {
            throw SubmissionError(code: .malformedJSON, message: "The body is not valid JSON: \(error.message).", offset: error.offset)
        }
        guard let body else { throw Self.notAnObject }
        try self.init(body: body, limits: limits)
    }

    /// Reads a body already parsed, or built in code: `["values": ["name": "Ada"]]`, or any other
    /// shape ``init(json:limits:)`` reads.
    public init(value: JSONValue, limits: SubmissionLimits = .init()) throws(SubmissionError) {
        guard let body = SubmissionBody(value) else { throw Self.notAnObject }
        try self.init(body: body, limits: limits)
    }

    private static let notAnObject = shape("The body must be a JSON object: a Formworks snapshot {\"components\": [...]} or {\"values\": {...}}.")

    private init(body: SubmissionBody, limits: SubmissionLimits) throws(SubmissionError) {
        if let version = body.formVersion {
            guard let n = version.numberValue, n == n.rounded(), n >= 1, n < 1e15 else {
                throw Self.shape("\"formVersion\" must be a positive whole number.")
            }
            formVersion = Int(n)
        } else {
            formVersion = nil
        }
        switch (body.values, body.components) {
        case (.some(let values), nil):
            guard let object = values.objectValue else { throw Self.shape("\"values\" must be an object.") }
            self.values = object
        case (nil, .items(let items)?):
            guard items.count <= limits.maxComponents else {
                throw SubmissionError(code: .tooLarge, message: "A snapshot may hold at most \(limits.maxComponents) components.")
            }
            self.values = try Self.values(fromSnapshot: items, limits: limits)
        case (nil, .other?):
            throw Self.shape("\"components\" must be an array.")
        case (.some, .some):
            throw Self.shape("Send either \"values\" or \"components\", not both.")
        case (nil, nil):
            throw Self.shape("The body must be a Formworks snapshot {\"components\": [...]} or {\"values\": {...}}.")
        }
    }

    private static func shape(_ message: String) -> SubmissionError {
        SubmissionError(code: .invalidShape, message: message)
    }

    /// Builds the nested values from snapshot components; ids may be key paths (`address.line1`,
    /// `addresses[0].postcode`), as the formworks profile serves them.
    private static func values(fromSnapshot items: [SubmissionBody.Item], limits: SubmissionLimits) throws(SubmissionError) -> JSONObject {
        var root = JSONObject()
        var entryBudget = limits.maxCreatedEntries
        for (i, item) in items.enumerated() {
            guard item.isObject, case .string(let id)? = item.id else {
                throw shape("Component \(i) of the snapshot needs a string \"id\".")
            }
            let content = item.content ?? .null
            let plain = !id.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "[") }
            var path: KeyPath?
            if !plain {
                switch KeyPath.parse(id, limits: limits) {
                case .path(let parsed): path = parsed
                case .notAPath: break
                case .tooLarge(let reason): throw SubmissionError(code: .tooLarge, message: "The id \"\(id.prefix(100))\" \(reason).")
                }
            }
            guard let path, path.segments.count > 1 else {
                if root[id] != nil { throw shape("The id \"\(id)\" appears twice in the snapshot.") }
                root.append(id, content)
                continue
            }
            var node = JSONValue.object(root)
            root = JSONObject()
            guard insert(content, at: path.segments[...], into: &node, budget: &entryBudget), case .object(let updated) = node else {
                if entryBudget < 0 {
                    throw SubmissionError(code: .tooLarge, message: "The snapshot's ids name more than \(limits.maxCreatedEntries) repeat entries in all.")
                }
                throw shape("The id \"\(id)\" conflicts with another component of the snapshot.")
            }
            root = updated
        }
        return root
    }

    /// Puts `content` at `path` inside `node`, creating objects and arrays on the way; false on a clash
    /// or when the entries created would overdraw `budget` (left negative then). Recursion is as deep
    /// as the path, which `KeyPath.parse` bounds.
    private static func insert(
        _ content: JSONValue, at path: ArraySlice<KeyPath.Segment>, into node: inout JSONValue, budget: inout Int
    ) -> Bool {
        guard let first = path.first else {
            if case .null = node { node = content; return true }
            return false
        }
        let rest = path.dropFirst()
        // Each case takes the container out of `node` (leaving `.null`) so it is mutated in place
        // rather than copied; a failure leaves `node` spoiled, and the caller then rejects the body.
        switch (first, node) {
        case (.key(let key), .object(var object)):
            node = .null
            let existing = object[key]
            if rest.isEmpty, existing != nil { return false }
            var child = existing ?? emptyContainer(for: rest.first)
            object[key] = .null
            guard insert(content, at: rest, into: &child, budget: &budget) else { return false }
            object[key] = child
            node = .object(object)
            return true
        case (.index(let index), .array(var array)):
            node = .null
            if array.count <= index {
                budget -= index + 1 - array.count
                if budget < 0 { return false }
                array.reserveCapacity(index + 1)
                while array.count <= index { array.append(.object(JSONObject())) }
            }
            var child = array[index]
            array[index] = .null
            guard insert(content, at: rest, into: &child, budget: &budget) else { return false }
            array[index] = child
            node = .array(array)
            return true
        default:
            return false
        }
    }

    /// What a path segment steps into: an array for an index, an object for a key, nothing at the end.
    private static func emptyContainer(for next: KeyPath.Segment?) -> JSONValue {
        switch next {
        case .index?: .array([])
        case .key?: .object(JSONObject())
        case nil: .null
        }
    }
}
