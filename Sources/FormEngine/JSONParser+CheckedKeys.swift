/// Duplicate-key checks for objects the parser reads without building: skipped members and snapshot
/// components. Each object's keys sit on a stack (`checkedKeys`) from its mark on, so nested objects
/// push above their parent's keys and drop their own when they close. A key is kept as a range of
/// the input when it has no escapes (nearly always), else copied into `checkedKeyBytes`.
extension JSONParser {
    struct CheckedKey {
        /// Where the key's bytes start: in the input, or in `checkedKeyBytes` when `copied`.
        var start: Int
        var count: Int
        /// Length, first and last byte: distinct for every key of a Formworks component, so the
        /// common case compares no bytes at all.
        var fingerprint: UInt32
        var copied: Bool
    }

    struct KeyMark {
        fileprivate let keys: Int
        fileprivate let bytes: Int
    }

    /// Where the keys of the object being entered start.
    mutating func beginKeys() -> KeyMark {
        KeyMark(keys: checkedKeys.count, bytes: checkedKeyBytes.count)
    }

    /// Drops the keys of an object that has closed.
    mutating func endKeys(_ mark: KeyMark) {
        checkedKeys.removeLast(checkedKeys.count - mark.keys)
        if checkedKeyBytes.count > mark.bytes { checkedKeyBytes.removeLast(checkedKeyBytes.count - mark.bytes) }
    }

    /// Records the key `scanString` just read (its `range`, or `scratch` when nil) and throws when the
    /// object already has it. Fingerprints are compared first while the object is small; past 64 keys
    /// a set takes over (`seen`, owned by the caller's loop) so hostile bodies stay linear.
    mutating func recordKey(
        _ range: Range<Int>?, since mark: KeyMark, seen: inout Set<[UInt8]>?, at keyOffset: Int
    ) throws(JSONParseError) {
        let key: CheckedKey
        if let range {
            let print = range.isEmpty ? 0 : Self.fingerprint(range.count, bytes[range.lowerBound], bytes[range.upperBound - 1])
            key = CheckedKey(start: range.lowerBound, count: range.count, fingerprint: print, copied: false)
        } else {
            let print = scratch.isEmpty ? 0 : Self.fingerprint(scratch.count, scratch[0], scratch[scratch.count - 1])
            key = CheckedKey(start: checkedKeyBytes.count, count: scratch.count, fingerprint: print, copied: true)
            checkedKeyBytes.append(contentsOf: scratch)
        }
        if seen == nil, checkedKeys.count - mark.keys < 64 {
            for k in mark.keys..<checkedKeys.count where checkedKeys[k].fingerprint == key.fingerprint {
                if same(checkedKeys[k], key) { throw duplicate(key, at: keyOffset) }
            }
        } else {
            if seen == nil { seen = Set(checkedKeys[mark.keys...].map(keyArray)) }
            if !seen!.insert(keyArray(key)).inserted { throw duplicate(key, at: keyOffset) }
        }
        checkedKeys.append(key)
    }

    private static func fingerprint(_ count: Int, _ first: UInt8, _ last: UInt8) -> UInt32 {
        UInt32(truncatingIfNeeded: count) << 16 | UInt32(first) << 8 | UInt32(last)
    }

    private func same(_ a: CheckedKey, _ b: CheckedKey) -> Bool {
        guard a.count == b.count else { return false }
        if !a.copied, !b.copied {
            return UnsafeBufferPointer(rebasing: bytes[a.start..<a.start + a.count])
                .elementsEqual(UnsafeBufferPointer(rebasing: bytes[b.start..<b.start + b.count]))
        }
        return keyArray(a) == keyArray(b)
    }

    private func keyArray(_ key: CheckedKey) -> [UInt8] {
        key.copied ? Array(checkedKeyBytes[key.start..<key.start + key.count])
                   : Array(UnsafeBufferPointer(rebasing: bytes[key.start..<key.start + key.count]))
    }

    private func duplicate(_ key: CheckedKey, at offset: Int) -> JSONParseError {
        error("duplicate key \"\(String(decoding: keyArray(key), as: UTF8.self))\"", at: offset)
    }
}
