import Crypto
import Foundation
import FormEngine
import FormStore

/// What an admin token may do; each role may do all that the roles after it may, except `exporter`,
/// which may only export submissions.
public enum AdminRole: String, CaseIterable, Sendable, Comparable {
    /// Everything.
    case owner
    /// Forms and the webhooks of its forms, and all a viewer may.
    case editor
    /// Reads forms, submissions, deliveries, files and stats of its forms.
    case viewer
    /// Only submission exports (`?format=csv|ndjson`) of its forms.
    case exporter

    /// `owner` < `editor` < `viewer` < `exporter`: a lower role may do what a higher one may.
    public static func < (lhs: AdminRole, rhs: AdminRole) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// "an editor", as a refusal names it.
    var withArticle: String { (self == .owner || self == .editor || self == .exporter ? "an " : "a ") + rawValue }
}

/// One configured admin token: its name for logs and refusals, the SHA-256 of its value (the value
/// itself is not kept), its role and the forms it is limited to.
public struct AdminToken: Sendable, Hashable {
    /// Shown in logs and in a refusal's detail; never the token.
    public var name: String
    /// The SHA-256 of the token's value.
    public var digest: [UInt8]
    public var role: AdminRole
    /// The form ids the token reaches; nil is every form.
    public var forms: Set<String>?

    /// The shortest plain token accepted.
    public static let minLength = 16

    public init(name: String, digest: [UInt8], role: AdminRole, forms: Set<String>? = nil) {
        self.name = name
        self.digest = digest
        self.role = role
        self.forms = forms
    }

    /// A plain `token` with `role`; an owner of every form unless told otherwise.
    public init(name: String, token: String, role: AdminRole = .owner, forms: Set<String>? = nil) {
        self.init(name: name, digest: Self.digest(of: token), role: role, forms: forms)
    }

    /// The SHA-256 of a token's value, as kept and compared.
    static func digest(of token: some StringProtocol) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }

    /// The owners of a plain token list (`FORMHOUSE_ADMIN_TOKENS`), named `token-1`, `token-2`, … by position.
    public static func owners(_ tokens: [String]) -> [AdminToken] {
        tokens.enumerated().map { AdminToken(name: "token-\($0.offset + 1)", token: $0.element) }
    }

    /// The tokens of the configuration file's `adminTokens`: each item a plain token (an owner named
    /// by its position) or `{"name", "token", "role", "forms"}`, where `token` may be `sha256:<hex>`.
    /// Errors name the key and the item's index, never a token.
    static func parse(_ value: JSONValue, key: String) throws -> [AdminToken] {
        guard case .array(let items) = value else { throw ConfigurationError(key: key, message: "must be a list of tokens") }
        var tokens: [AdminToken] = []
        for (index, item) in items.enumerated() {
            let itemKey = "\(key)[\(index)]"
            switch item {
            case .string(let token):
                tokens.append(AdminToken(name: "token-\(index + 1)", token: try plain(token, key: itemKey)))
            case .object:
                tokens.append(try entry(item, key: itemKey))
            default:
                throw ConfigurationError(key: itemKey, message: "must be a token or an object {\"name\", \"token\", \"role\", \"forms\"}")
            }
        }
        var seen = Set<String>()
        for (index, token) in tokens.enumerated() where !seen.insert(token.name).inserted {
            throw ConfigurationError(key: "\(key)[\(index)].name", message: "'\(token.name)' names another token too")
        }
        // One value listed twice would take whichever entry is checked last, role and forms included.
        var values = [[UInt8]: Int]()
        for (index, token) in tokens.enumerated() {
            if let first = values.updateValue(index, forKey: token.digest) {
                throw ConfigurationError(key: "\(key)[\(index)].token", message: "is the same token as \(key)[\(first)]; give each token once")
            }
        }
        return tokens
    }

    private static func entry(_ item: JSONValue, key: String) throws -> AdminToken {
        guard case .object(let object) = item else { preconditionFailure("entry(_:) takes an object") }
        for member in object.members where !["name", "token", "role", "forms"].contains(member.key) {
            throw ConfigurationError(key: "\(key).\(member.key)", message: "is not a token's member (name, token, role, forms)")
        }
        guard case .string(let name)? = item["name"], (1...64).contains(name.count),
              name.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F || $0.value > 0xA0 }) else {
            throw ConfigurationError(key: "\(key).name", message: "must be 1 to 64 visible characters")
        }
        guard case .string(let role)? = item["role"], let parsedRole = AdminRole(rawValue: role) else {
            throw ConfigurationError(
                key: "\(key).role", message: "must be one of " + AdminRole.allCases.map(\.rawValue).joined(separator: ", "))
        }
        guard case .string(let token)? = item["token"] else {
            throw ConfigurationError(key: "\(key).token", message: "must be a token of at least \(minLength) characters or sha256:<64 hex digits>")
        }
        let digest: [UInt8]
        if token.hasPrefix("sha256:") {
            let hex = token.dropFirst("sha256:".count)
            guard hex.utf8.count == 64, let bytes = Hex.decode(hex.utf8) else {
                throw ConfigurationError(key: "\(key).token", message: "must be sha256: and 64 hex digits")
            }
            digest = bytes
        } else {
            digest = Self.digest(of: try plain(token, key: "\(key).token"))
        }
        var forms: Set<String>?
        switch item["forms"] {
        case nil, .null?: forms = nil
        case .array(let ids)?:
            forms = []
            for id in ids {
                guard case .string(let id) = id, !id.isEmpty else {
                    throw ConfigurationError(key: "\(key).forms", message: "must be a list of form ids")
                }
                forms?.insert(id)
            }
        default:
            throw ConfigurationError(key: "\(key).forms", message: "must be a list of form ids")
        }
        return AdminToken(name: name, digest: digest, role: parsedRole, forms: forms)
    }

    /// An empty token is refused rather than dropped: dropping it would let `[""]` or a stray comma
    /// close the admin API (or leave one token fewer) without a word.
    static func plain(_ token: String, key: String) throws -> String {
        let token = token.trimmingCharacters(in: .whitespaces)
        if token.isEmpty {
            throw ConfigurationError(key: key, message: "holds an empty token (a stray comma in \(Setting.environmentName(of: "adminTokens"))?)")
        }
        if token.count < minLength {
            throw ConfigurationError(key: key, message: "every admin token must be at least \(minLength) characters")
        }
        return token
    }
}
