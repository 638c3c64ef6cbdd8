extension FormDefinition {
    /// Whether the form has a `file` input anywhere.
    public var hasFileInputs: Bool { !fileInputs.isEmpty }

    /// The rules of the `file` input at `keyPath` (`photo`, `addresses.photo`, `addresses[2].photo`:
    /// repeat indices do not matter), or nil when no file input is there.
    public func fileInput(at keyPath: String) -> FileInputRules? {
        guard hasFileInputs, let path = Self.canonicalPath(keyPath) else { return nil }
        return fileInputs[path]
    }

    /// The upload ids `submission` gives to file inputs, each once, in form order: in every group and
    /// repeat item, whether the input is visible or not, whatever else the value holds. A server
    /// fetches their ``UploadedFile`` facts with these before it validates.
    public func fileIDs(in submission: Submission) -> [String] {
        guard hasFileInputs else { return [] }
        var ids: [String] = []
        var seen = Set<String>()
        Self.collectFileIDs(nodes, in: submission.values, into: &ids, seen: &seen)
        return ids
    }

    private static func collectFileIDs(_ nodes: [FormNode], in values: JSONObject, into ids: inout [String], seen: inout Set<String>) {
        for node in nodes {
            switch node.kind {
            case .section(let children):
                collectFileIDs(children, in: values, into: &ids, seen: &seen)
            case .input(let spec):
                guard spec.file != nil else { continue }
                let given: [JSONValue] = switch values[spec.id] {
                case .array(let items)?: items
                case let value?: [value]
                case nil: []
                }
                for case .string(let id) in given where !id.isEmpty && seen.insert(id).inserted {
                    ids.append(id)
                }
            case .group(let group):
                switch values[group.id] {
                case .object(let object)? where group.repeatBounds == nil:
                    collectFileIDs(group.children, in: object, into: &ids, seen: &seen)
                case .array(let items)? where group.repeatBounds != nil:
                    for case .object(let item) in items {
                        collectFileIDs(group.children, in: item, into: &ids, seen: &seen)
                    }
                default:
                    break
                }
            }
        }
    }

    /// Gives each file input's rules its path, which is known once the ids are, and collects them.
    static func placeFileInputs(_ nodes: inout [FormNode], prefix: String, into files: inout [String: FileInputRules]) {
        for i in nodes.indices {
            switch nodes[i].kind {
            case .section(var children):
                placeFileInputs(&children, prefix: prefix, into: &files)
                nodes[i].kind = .section(children: children)
            case .group(var group):
                placeFileInputs(&group.children, prefix: prefix + group.id + ".", into: &files)
                nodes[i].kind = .group(group)
            case .input(var spec):
                guard let rules = spec.file else { continue }
                spec.file = rules.placed(at: prefix + spec.id)
                files[prefix + spec.id] = spec.file
                nodes[i].kind = .input(spec)
            }
        }
    }

    /// `addresses[2].photo` (or `addresses[].photo`) as `addresses.photo`; nil when a bracket holds
    /// anything but digits or is not closed, or a key follows it without a dot.
    static func canonicalPath(_ keyPath: String) -> String? {
        var path = ""
        var inIndex = false
        var afterIndex = false
        for c in keyPath {
            if inIndex {
                if c == "]" {
                    inIndex = false
                    afterIndex = true
                } else if !c.isASCII || !c.isNumber {
                    return nil
                }
                continue
            }
            if c == "[" {
                inIndex = true
            } else if c == "]" || afterIndex && c != "." {
                return nil
            } else {
                path.append(c)
                afterIndex = false
            }
        }
        return inIndex ? nil : path
    }
}
