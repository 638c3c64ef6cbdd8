import Foundation

/// The audit log of admin writes. Entries are appended only inside the transaction of the write they
/// record (each admin write takes an ``AuditNote``); nothing in the store edits or removes one.
public protocol AuditStore: Sendable {
    /// Entries matching `query`, at most `query.limit` of them, by sequence number in the order it asks.
    func auditEntries(_ query: AuditQuery) async throws -> [AuditEntry]
}

/// Checks that an audit log is whole: numbered from 1 without gaps, each entry's hash matching its
/// fields, and each holding the hash of the one before.
public enum AuditChain {
    /// The previous hash of the first entry.
    public static let genesisHash = String(repeating: "0", count: 64)

    /// What a check found.
    public enum Verdict: Sendable, Equatable {
        /// Every entry checked out; `head` is the last one's sequence and hash (nil for an empty log).
        case intact(entries: Int64, head: (sequence: Int64, hash: String)?)
        /// The first entry (by position read) that breaks the chain, and how.
        case broken(sequence: Int64, reason: String)

        public static func == (lhs: Verdict, rhs: Verdict) -> Bool {
            switch (lhs, rhs) {
            case let (.intact(a, headA), .intact(b, headB)):
                a == b && headA?.sequence == headB?.sequence && headA?.hash == headB?.hash
            case let (.broken(a, reasonA), .broken(b, reasonB)): a == b && reasonA == reasonB
            default: false
            }
        }
    }

    /// Reads the whole log oldest first, `batch` entries at a time. With `expectedHead` (a sequence and
    /// hash noted earlier), a log that no longer holds that entry, as it was, is broken: a chain alone
    /// cannot show that its newest entries were cut off.
    public static func verify(
        _ store: any AuditStore, batch: Int = 1000, expectedHead: (sequence: Int64, hash: String)? = nil
    ) async throws -> Verdict {
        var previous: (sequence: Int64, hash: String) = (0, genesisHash)
        var count: Int64 = 0
        var sawExpected = expectedHead == nil
        while true {
            let entries = try await store.auditEntries(AuditQuery(after: previous.sequence, limit: batch))
            for entry in entries {
                if entry.sequence != previous.sequence + 1 {
                    return .broken(sequence: entry.sequence, reason: "entry \(previous.sequence + 1) is missing or out of place")
                }
                if entry.previousHash != previous.hash {
                    return .broken(sequence: entry.sequence, reason: "its previous hash is not the hash of entry \(previous.sequence)")
                }
                if entry.computedHash != entry.hash {
                    return .broken(sequence: entry.sequence, reason: "its fields do not match its hash")
                }
                if let expectedHead, entry.sequence == expectedHead.sequence {
                    guard entry.hash == expectedHead.hash else {
                        return .broken(sequence: entry.sequence, reason: "its hash is not the expected head's")
                    }
                    sawExpected = true
                }
                previous = (entry.sequence, entry.hash)
                count += 1
            }
            if entries.count < batch { break }
        }
        if !sawExpected, let expectedHead {
            return .broken(sequence: expectedHead.sequence, reason: "the log ends at entry \(previous.sequence), before the expected head")
        }
        return .intact(entries: count, head: count == 0 ? nil : previous)
    }
}
