/// Where a key path written in a definition leads from one scope of the tree: the one walk that
/// conditions (`visibleWhen`, `enabledWhen`, `updates`) and formulas share, so that both name inputs alike.
enum KeyPathWalk {
    /// The node, how many of the reader's enclosing groups the path entered (the scope it ends in),
    /// and the keys that lead from that scope to the node.
    case found(FormNode, depth: Int, keys: [String])
    case notFound
    /// The path goes into a repeating group the reader is not inside, which has one value per item.
    case throughRepeat

    /// Resolves `segments` as a reader does: from the innermost scope outwards, the first scope it
    /// leads somewhere from wins; `.throughRepeat` when it only ever led into a repeat.
    static func resolve(_ segments: [String], scopes: [[FormNode]], ancestors: [Int], wantRepeat: Bool) -> KeyPathWalk {
        var throughRepeat = false
        for start in stride(from: scopes.count - 1, through: 0, by: -1) {
            switch walk(segments, from: start, scopes: scopes, ancestors: ancestors, wantRepeat: wantRepeat) {
            case .found(let node, let depth, let keys): return .found(node, depth: depth, keys: keys)
            case .throughRepeat: throughRepeat = true
            case .notFound: continue
            }
        }
        return throughRepeat ? .throughRepeat : .notFound
    }

    /// Walks `segments` from `scopes[start]`; `ancestors` are the orders of the reader's enclosing
    /// groups, which the path enters without a key of its own in the values. With `wantRepeat` the
    /// path must end at a repeating group (a formula's column), otherwise at an input.
    private static func walk(_ segments: [String], from start: Int, scopes: [[FormNode]], ancestors: [Int], wantRepeat: Bool) -> KeyPathWalk {
        var scope = start
        var keys: [String] = []
        var nodes = scopes[start]
        for (i, segment) in segments.enumerated() {
            guard let node = find(segment, in: nodes) else { return .notFound }
            let last = i == segments.count - 1
            switch node.kind {
            case .input:
                return last && !wantRepeat ? .found(node, depth: scope, keys: keys + [segment]) : .notFound
            case .group(let group):
                if last {
                    guard wantRepeat, group.repeatBounds != nil else { return .notFound }
                    return .found(node, depth: scope, keys: keys + [segment])
                }
                if keys.isEmpty, scope < ancestors.count, ancestors[scope] == node.order {
                    scope += 1
                } else if group.repeatBounds != nil {
                    return .throughRepeat
                } else {
                    keys.append(segment)
                }
                nodes = group.children
            case .section:
                return .notFound
            }
        }
        return .notFound
    }

    /// A path inside a repeat's item: through plain groups only.
    static func walkPlain(_ segments: [String], nodes start: [FormNode]) -> KeyPathWalk {
        var keys: [String] = []
        var nodes = start
        for (i, segment) in segments.enumerated() {
            guard let node = find(segment, in: nodes) else { return .notFound }
            let last = i == segments.count - 1
            switch node.kind {
            case .input: return last ? .found(node, depth: 0, keys: keys + [segment]) : .notFound
            case .group(let group) where group.repeatBounds == nil && !last:
                keys.append(segment)
                nodes = group.children
            default: return .notFound
            }
        }
        return .notFound
    }

    /// Finds the node with `id` among `nodes`, looking through sections.
    static func find(_ id: String, in nodes: [FormNode]) -> FormNode? {
        for node in nodes {
            switch node.kind {
            case .input(let spec) where spec.id == id: return node
            case .group(let group) where group.id == id: return node
            case .section(let children):
                if let hit = find(id, in: children) { return hit }
            default: continue
            }
        }
        return nil
    }
}
