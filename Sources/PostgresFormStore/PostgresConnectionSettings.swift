import Foundation
import PostgresNIO

/// Where and how to reach a PostgreSQL database, read from a URL in libpq's form:
/// `postgres://user:password@host:port/database?sslmode=require` (`postgresql://` too), or a Unix
/// socket with `postgres://user@/database?host=/run/postgresql`.
///
/// The password is kept out of ``description`` and out of every parse error.
public struct PostgresConnectionSettings: Sendable, Equatable, CustomStringConvertible {
    /// Whether and how the connection uses TLS, as libpq's `sslmode` names it.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it, without verifying its certificate.
        case prefer
        /// TLS or no connection, without verifying the server's certificate.
        case require
        /// TLS or no connection, with the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    /// The server's address.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// A Unix socket in `directory`, named for `port` as the server names it (`.s.PGSQL.<port>`).
        case unixSocket(directory: String, port: Int)
    }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    /// Only meaningful over TCP: a Unix socket never uses TLS.
    public var sslMode: SSLMode

    /// The port libpq and the server use unless told otherwise.
    public static let defaultPort = 5432

    public init(endpoint: Endpoint, username: String, password: String?, database: String, sslMode: SSLMode) {
        self.endpoint = endpoint
        self.username = username
        self.password = password
        self.database = database
        self.sslMode = sslMode
    }

    /// Reads settings from a `postgres://` or `postgresql://` URL; the database defaults to the user's
    /// name and `sslmode` to `prefer` (both as libpq does).
    public init(url text: String) throws(PostgresSettingsError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .notAURL
        }
        guard scheme == "postgres" || scheme == "postgresql" else { throw .unsupportedScheme(scheme) }
        guard let username = components.user, !username.isEmpty else { throw .missingUsername }
        self.username = username
        password = components.password

        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        if path.contains("/") { throw .invalidDatabaseName(path) }
        database = path.isEmpty ? username : path

        var socketDirectory: String?
        var sslMode: SSLMode?
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else { throw .unsupportedSSLMode(value) }
                sslMode = mode
            case "host":
                guard value.hasPrefix("/") else { throw .socketDirectoryNotAbsolute(value) }
                socketDirectory = value
            default:
                throw .unsupportedParameter(item.name)
            }
        }

        let port: Int
        if let given = components.port {
            guard (1...65_535).contains(given) else { throw .invalidPort(given) }
            port = given
        } else {
            port = Self.defaultPort
        }
        let host = components.host ?? ""
        if let socketDirectory {
            guard host.isEmpty else { throw .hostAndSocketDirectory }
            if let sslMode, sslMode == .require || sslMode == .verifyFull { throw .tlsOverUnixSocket(sslMode) }
            endpoint = .unixSocket(directory: socketDirectory, port: port)
        } else {
            guard !host.isEmpty else { throw .missingHost }
            endpoint = .tcp(host: host, port: port)
        }
        self.sslMode = sslMode ?? .prefer
    }

    /// The URL without its password.
    public var description: String {
        let credentials = password == nil ? username : "\(username):***"
        switch endpoint {
        case .tcp(let host, let port):
            return "postgres://\(credentials)@\(host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
        case .unixSocket(let directory, let port):
            return "postgres://\(credentials)@:\(port)/\(database)?host=\(directory)"
        }
    }

    /// The settings as postgres-nio's pooled client takes them.
    func clientConfiguration() -> PostgresClient.Configuration {
        switch endpoint {
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS = switch (sslMode, tlsConfiguration) {
            case (_, nil): .disable
            case (.prefer, let tls?): .prefer(tls)
            case (_, let tls?): .require(tls)
            }
            return PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        case .unixSocket:
            return PostgresClient.Configuration(
                unixSocketPath: socketPath, username: username, password: password, database: database)
        }
    }

    /// The settings as postgres-nio's single connection takes them.
    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS = switch (sslMode, tlsConfiguration) {
            case (_, nil): .disable
            case (.prefer, let tls?): .prefer(try NIOSSLContext(configuration: tls))
            case (_, let tls?): .require(try NIOSSLContext(configuration: tls))
            }
            return PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        case .unixSocket:
            return PostgresConnection.Configuration(
                unixSocketPath: socketPath, username: username, password: password, database: database)
        }
    }

    /// The socket file the server makes in its socket directory.
    private var socketPath: String {
        guard case .unixSocket(let directory, let port) = endpoint else { return "" }
        return "\(directory)/.s.PGSQL.\(port)"
    }

    /// TLS as `sslMode` asks for it, nil for none; only `verify-full` checks the server's certificate.
    private var tlsConfiguration: TLSConfiguration? {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .disable: return nil
        case .prefer, .require: tls.certificateVerification = .none
        case .verifyFull: break
        }
        return tls
    }
}
