/// A scalar's part in word boundaries (see `ScalarProperty.wordness`).
enum Wordness: UInt8, Sendable {
    case nonWord
    case word
    case transparent

    /// Whether the last non-transparent scalar was a word scalar, after consuming one with this wordness.
    func afterWord(previous: Bool) -> Bool {
        self == .transparent ? previous : self == .word
    }
}
