import Crypto
import Foundation

/// What the caller of an admin write tells the store to record about it, in the write's own
/// transaction. The store adds the sequence number, the time and, for form writes, the versions
/// before and after.
public struct AuditNote: Sendable, Equatable {
    /// The admin token's name.
    public var actor: String
    /// What was done, as a dotted word (`form.saved`, `webhook.deleted`, `submissions.erased`).
    public var action: String
    /// The method and route pattern (`PUT /v1/admin/forms/{id}`).
    public var route: String
    /// The id of what was changed: a form, endpoint, delivery or submission id.
    public var target: String
    /// Facts about the change as a JSON object's text (never values a person entered), or nil.
    public var detail: String?

    public init(actor: String, action: String, route: String, target: String, detail: String? = nil) {
        self.actor = actor
        self.action = action
        self.route = route
        self.target = target
        self.detail = detail
    }
}

/// One entry of the audit log. Entries are numbered from 1 without gaps, and each holds the hash of
/// the one before, so an entry edited, removed or moved breaks the chain (``AuditChain``).
public struct AuditEntry: Sendable, Equatable {
    public var sequence: Int64
    /// Stored at whole milliseconds.
    public var at: Date
    public var actor: String
    public var action: String
    public var route: String
    public var target: String
    /// The form's current version before and after the change, for writes to a form.
    public var versionBefore: Int?
    public var versionAfter: Int?
    public var detail: String?
    /// The previous entry's ``hash``; 64 zeros for the first entry.
    public var previousHash: String
    /// Lowercase hex SHA-256 of the entry's fields (see ``canonicalBytes``).
    public var hash: String

    public init(
        sequence: Int64, at: Date, actor: String, action: String, route: String, target: String,
        versionBefore: Int?, versionAfter: Int?, detail: String?, previousHash: String, hash: String
    ) {
        self.sequence = sequence
        self.at = at
        self.actor = actor
        self.action = action
        self.route = route
        self.target = target
        self.versionBefore = versionBefore
        self.versionAfter = versionAfter
        self.detail = detail
        self.previousHash = previousHash
        self.hash = hash
    }

    /// The next entry after one whose sequence and hash are given (0 and ``AuditChain/genesisHash``
    /// for the first), with its hash computed.
    public init(after sequence: Int64, previousHash: String, note: AuditNote, at: Date, versionBefore: Int?, versionAfter: Int?) {
        self.init(
            sequence: sequence + 1, at: Date(storedMilliseconds: at.storedMilliseconds), actor: note.actor,
            action: note.action, route: note.route, target: note.target, versionBefore: versionBefore,
            versionAfter: versionAfter, detail: note.detail, previousHash: previousHash, hash: "")
        hash = computedHash
    }

    /// The bytes the hash covers: each field in a fixed order as a netstring (`<length>:<UTF-8 bytes>,`),
    /// an absent field as `-,`; numbers in decimal, the time in milliseconds since 1970. Netstrings
    /// cannot be confused by any text a field holds, and any language can write them.
    public var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        func field(_ text: String?) {
            guard let text else { bytes += Array("-,".utf8); return }
            let utf8 = Array(text.utf8)
            bytes += Array("\(utf8.count):".utf8) + utf8 + [UInt8(ascii: ",")]
        }
        field(String(sequence))
        field(String(at.storedMilliseconds))
        field(actor)
        field(action)
        field(route)
        field(target)
        field(versionBefore.map(String.init))
        field(versionAfter.map(String.init))
        field(detail)
        field(previousHash)
        return bytes
    }

    /// The hash the entry's fields give now; differs from ``hash`` once a field was edited.
    public var computedHash: String {
        Hex.encode(SHA256.hash(data: canonicalBytes))
    }
}

/// Which audit entries to read, and in which order.
public struct AuditQuery: Sendable, Equatable {
    /// Entries with a sequence number above this one (oldest first reading).
    public var after: Int64?
    /// Entries with a sequence number below this one (newest first reading).
    public var before: Int64?
    public var newestFirst: Bool
    public var limit: Int
    public var actor: String?
    public var action: String?
    public var target: String?
    /// Entries at or after this time.
    public var from: Date?
    /// Entries before this time.
    public var until: Date?

    public init(
        after: Int64? = nil, before: Int64? = nil, newestFirst: Bool = false, limit: Int, actor: String? = nil,
        action: String? = nil, target: String? = nil, from: Date? = nil, until: Date? = nil
    ) {
        self.after = after
        self.before = before
        self.newestFirst = newestFirst
        self.limit = limit
        self.actor = actor
        self.action = action
        self.target = target
        self.from = from
        self.until = until
    }
}
