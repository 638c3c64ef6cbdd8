import FormEngine
import HTTPServer

/// The headers of an answer whose messages follow the request's `Accept-Language` (a 422, a
/// `/validate` answer, a draft): `Vary`, since another language gets other bytes, and
/// `Content-Language`, the languages the messages are in, when there are messages.
enum MessageLanguage {
    static func headers(_ languages: [String]) -> [(String, String)] {
        var headers = [("Vary", "Accept-Language")]
        if !languages.isEmpty { headers.append(("Content-Language", languages.joined(separator: ", "))) }
        return headers
    }

    static func add(_ languages: [String], to response: inout Response) {
        for (name, value) in headers(languages) { response.headers.add(name, value) }
    }
}
