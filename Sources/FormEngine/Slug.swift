import Foundation

/// Stable ids for components uploaded without one.
///
/// An id is `<type>-<slug of the title>` (`text-what-is-your-mothers-name`), or just the type when the
/// title has no letters or digits; a clash at the same level gets `-2`, `-3`, ... in form order. Explicit
/// ids are reserved first, so the same upload always yields the same ids, and a later version keeps a
/// component's id as long as its type and title stay and no earlier twin is inserted.
enum Slug {
    static let maxLength = 48

    static func make(_ title: String) -> String {
        var out = ""
        var pendingDash = false
        for scalar in title.decomposedStringWithCanonicalMapping.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x30...0x39, 0x61...0x7A:
                if pendingDash, !out.isEmpty { out.append("-") }
                pendingDash = false
                out.unicodeScalars.append(scalar)
            case 0x41...0x5A:
                if pendingDash, !out.isEmpty { out.append("-") }
                pendingDash = false
                out.unicodeScalars.append(Unicode.Scalar(v + 0x20)!)
            case 0x27, 0x2019:
                continue // apostrophes join: "mother's" -> "mothers"
            case 0x300...0x36F:
                continue // combining marks left by decomposition: "é" -> "e"
            default:
                pendingDash = true
            }
            if out.utf8.count >= maxLength { break }
        }
        return out
    }

    static func uniqueID(type: String, title: String, taken: inout Set<String>) -> String {
        let slug = make(title)
        let base = slug.isEmpty ? type : "\(type)-\(slug)"
        var candidate = base
        var n = 2
        while taken.contains(candidate) {
            candidate = "\(base)-\(n)"
            n += 1
        }
        taken.insert(candidate)
        return candidate
    }
}
