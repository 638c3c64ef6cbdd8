@testable import HTTPServer
import Testing

/// Header names match ASCII letters case-insensitively and nothing else.
@Suite struct HeaderTests {
    @Test func namesMatchIgnoringTheCaseOfLettersOnly() {
        #expect(HTTPHeaders.equalsIgnoringCase("X-Request-Id", "x-request-id"))
        #expect(HTTPHeaders.equalsIgnoringCase("CONTENT-LENGTH", "Content-Length"))
        #expect(HTTPHeaders.equalsIgnoringCase("", ""))
        // Long names (past the 15 bytes a small string holds) take the same path.
        #expect(HTTPHeaders.equalsIgnoringCase("Access-Control-Request-Method", "access-control-request-METHOD"))
        // The 0x20 bit makes these pairs differ only in it, but they are not letters.
        #expect(!HTTPHeaders.equalsIgnoringCase("Content-Length", "Content\u{0D}Length"))
        #expect(!HTTPHeaders.equalsIgnoringCase("A[", "a{"))
        #expect(!HTTPHeaders.equalsIgnoringCase("X_Id", "X\u{7F}Id"))
        #expect(!HTTPHeaders.equalsIgnoringCase("Host", "Hosts"))
        #expect(!HTTPHeaders.equalsIgnoringCase("Host", "Hist"))
        // Non-ASCII is compared byte for byte.
        #expect(HTTPHeaders.equalsIgnoringCase("Grüße", "Grüße"))
        #expect(!HTTPHeaders.equalsIgnoringCase("Grüße", "GRÜSSE"))
    }

    @Test func optionalWhitespaceIsTrimmedAsSpaceAndTabBytes() {
        #expect(Substring(" \t keep-alive \t ").trimmingASCIISpace() == "keep-alive")
        #expect(Substring("a b").trimmingASCIISpace() == "a b")
        #expect(Substring(" \t ").trimmingASCIISpace() == "")
        #expect(Substring("").trimmingASCIISpace() == "")
        #expect(Substring(" Grüße\t").trimmingASCIISpace() == "Grüße")
        // Other whitespace is not optional whitespace in HTTP.
        #expect(Substring("\u{0B}x\u{A0}").trimmingASCIISpace() == "\u{0B}x\u{A0}")
        // A slice of a larger string keeps its own bounds.
        let line = "Content-Type:  application/json ;charset=utf-8"
        let value = line[line.index(line.startIndex, offsetBy: 13)..<line.firstIndex(of: ";")!]
        #expect(value.trimmingASCIISpace() == "application/json")
        #expect(HTTPParser.tokens(" gzip , chunked,, ") == ["gzip", "chunked"])
        #expect(HTTPParser.tokens(" a ,, b ", keepEmpty: true) == ["a", "", "b"])
    }

    @Test func lookupSetAndRemoveUseTheSameMatch() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Vary": "Accept"]
        headers.add("vary", "Origin")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values("VARY") == ["Accept", "Origin"])
        headers.set("CONTENT-TYPE", "application/json")
        #expect(headers.values("Content-Type") == ["application/json"])
        headers.remove("Vary")
        #expect(!headers.contains("vary"))
        #expect(headers["X-Missing"] == nil)
    }
}
