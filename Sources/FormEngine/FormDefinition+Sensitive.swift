extension FormDefinition {
    /// Whether any input is sensitive (`"sensitive": true`, or a `password`), so that a server
    /// handles the form's values with care; forms without one skip every walk below.
    public var hasSensitiveInputs: Bool { !sensitiveInputPaths.isEmpty }

    /// The same values with each sensitive input's value, wherever it stands (in groups, in every
    /// item of a repeating group), replaced by what `transform` makes of it, or removed when it
    /// returns nil. Inputs without a value are not visited; a value of the wrong shape for its group
    /// (not an object, not an array for a repeat) is left as it is. One walk seals, opens and redacts.
    public func mappingSensitiveValues(in values: JSONValue, _ transform: (JSONValue) throws -> JSONValue?) rethrows -> JSONValue {
        guard hasSensitiveInputs, case .object(var object) = values else { return values }
        try Self.map(sensitiveTree, in: &object, transform)
        return .object(object)
    }

    private static func map(_ nodes: [SensitiveNode], in object: inout JSONObject, _ transform: (JSONValue) throws -> JSONValue?) rethrows {
        for node in nodes {
            switch node {
            case .input(let id):
                guard let value = object[id] else { continue }
                object[id] = try transform(value)
            case .group(let id, let repeats, let children):
                switch object[id] {
                case .object(var inner)? where !repeats:
                    try map(children, in: &inner, transform)
                    object[id] = .object(inner)
                case .array(let items)? where repeats:
                    object[id] = .array(try items.map { item in
                        guard case .object(var inner) = item else { return item }
                        try map(children, in: &inner, transform)
                        return .object(inner)
                    })
                default:
                    continue
                }
            }
        }
    }

    /// The groups that hold sensitive inputs, and those inputs, as their values nest (sections are
    /// transparent); groups without one are left out.
    static func sensitiveTree(_ nodes: [FormNode]) -> [SensitiveNode] {
        nodes.flatMap { node -> [SensitiveNode] in
            switch node.kind {
            case .input(let spec): return spec.sensitive ? [.input(spec.id)] : []
            case .section(let children): return sensitiveTree(children)
            case .group(let group):
                let children = sensitiveTree(group.children)
                return children.isEmpty ? [] : [.group(group.id, repeats: group.repeatBounds != nil, children)]
            }
        }
    }
}

/// Where a sensitive value stands in a form's values.
indirect enum SensitiveNode: Sendable {
    case input(String)
    case group(String, repeats: Bool, [SensitiveNode])
}
