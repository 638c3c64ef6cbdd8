/// Digest comparison whose time does not depend on where, or whether, two digests differ.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes, every byte compared without stopping early. Digests of
    /// one hash have one length, which is no secret, so a length mismatch answers at once.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
