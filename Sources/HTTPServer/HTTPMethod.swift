/// An HTTP request method; any token the client sends is representable, the common ones are named.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method token exactly as sent (methods are case-sensitive).
    public var rawValue: String

    /// Wraps a method token.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }

    /// The common methods recognised from raw bytes without building a new string.
    static func known(_ bytes: UnsafeRawBufferPointer) -> HTTPMethod? {
        switch bytes.count {
        case 3 where bytes.elementsEqual("GET".utf8): .get
        case 3 where bytes.elementsEqual("PUT".utf8): .put
        case 4 where bytes.elementsEqual("POST".utf8): .post
        case 4 where bytes.elementsEqual("HEAD".utf8): .head
        case 5 where bytes.elementsEqual("PATCH".utf8): .patch
        case 6 where bytes.elementsEqual("DELETE".utf8): .delete
        case 7 where bytes.elementsEqual("OPTIONS".utf8): .options
        default: nil
        }
    }
}
