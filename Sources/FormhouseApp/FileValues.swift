import FormEngine

/// File objects inside a submission's values: `{"id": "upl_…", "contentType", "size", "sha256",
/// "filename"}` where a file input stands, alone or in an array, at any depth of groups and repeats.
enum FileValues {
    /// Whether `object` is the stored form of one of `ids`.
    private static func fileID(_ object: JSONObject, in ids: Set<String>) -> String? {
        guard let id = object["id"]?.stringValue, ids.contains(id), object["sha256"] != nil else { return nil }
        return id
    }

    /// The values with a signed `url` added to each file object of `ids`.
    static func addingLinks(to values: JSONValue, ids: Set<String>, links: FileLinks) -> JSONValue {
        switch values {
        case .object(var object):
            if let id = fileID(object, in: ids) {
                object["url"] = .string(links.url(for: id))
                return .object(object)
            }
            for member in object.members { object[member.key] = addingLinks(to: member.value, ids: ids, links: links) }
            return .object(object)
        case .array(let items):
            return .array(items.map { addingLinks(to: $0, ids: ids, links: links) })
        default:
            return values
        }
    }

    /// The key path at which each of `ids` stands in `values`.
    static func fields(of ids: Set<String>, in values: JSONValue, at path: String = "") -> [String: String] {
        var found: [String: String] = [:]
        switch values {
        case .object(let object):
            if let id = fileID(object, in: ids) { return [id: path] }
            for member in object.members {
                found.merge(fields(of: ids, in: member.value, at: path.isEmpty ? member.key : "\(path).\(member.key)")) { a, _ in a }
            }
        case .array(let items):
            for (index, item) in items.enumerated() {
                // An array of files is one input; an array of objects is a repeating group's items.
                let itemPath = item.objectValue.flatMap { fileID($0, in: ids) } != nil ? path : "\(path)[\(index)]"
                found.merge(fields(of: ids, in: item, at: itemPath)) { a, _ in a }
            }
        default:
            break
        }
        return found
    }
}
