/// Why a PostgreSQL URL was refused. No case carries the URL itself, which may hold a password.
public enum PostgresSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    case notAURL
    case unsupportedScheme(String)
    case missingUsername
    case missingHost
    case invalidPort(Int)
    case invalidDatabaseName(String)
    case unsupportedSSLMode(String)
    case unsupportedParameter(String)
    case socketDirectoryNotAbsolute(String)
    case hostAndSocketDirectory
    case tlsOverUnixSocket(PostgresConnectionSettings.SSLMode)

    public var description: String {
        switch self {
        case .notAURL:
            "the PostgreSQL URL is not a URL"
        case .unsupportedScheme(let scheme):
            "the PostgreSQL URL's scheme is \(scheme), not postgres or postgresql"
        case .missingUsername:
            "the PostgreSQL URL names no user"
        case .missingHost:
            "the PostgreSQL URL names no host (nor a socket directory in ?host=)"
        case .invalidPort(let port):
            "the PostgreSQL URL's port \(port) is not between 1 and 65535"
        case .invalidDatabaseName(let name):
            "the PostgreSQL URL's database name \(name) has a slash"
        case .unsupportedSSLMode(let mode):
            "the PostgreSQL URL's sslmode \(mode) is not one of "
                + PostgresConnectionSettings.SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
        case .unsupportedParameter(let name):
            "the PostgreSQL URL's parameter \(name) is not supported (only sslmode and host)"
        case .socketDirectoryNotAbsolute(let directory):
            "the PostgreSQL URL's host parameter \(directory) is not an absolute socket directory"
        case .hostAndSocketDirectory:
            "the PostgreSQL URL names both a host and a socket directory"
        case .tlsOverUnixSocket(let mode):
            "the PostgreSQL URL asks for sslmode=\(mode.rawValue), which a Unix socket cannot give"
        }
    }
}
