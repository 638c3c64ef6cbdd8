import Foundation
import Testing
@testable import FormhouseApp

/// The hand-written helpers that replaced Foundation calls on the request path agree with what they
/// replaced, and the headers they moved still reach every answer.
@Suite struct HotPathHelperTests {
    @Test func timestampsMatchFoundationsISO8601() {
        let reference = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var generator = SystemRandomNumberGenerator()
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 951_782_400.5),  // 2000-02-29
                     Date(timeIntervalSince1970: 4_107_542_399.999), Date(timeIntervalSince1970: 1_763_710_000.0009)]
        for _ in 0..<5000 {
            // Milliseconds exactly, so both sides agree on the digit that is cut.
            dates.append(Date(timeIntervalSince1970: Double(Int64.random(in: 0...7_258_118_399_999, using: &generator)) / 1000))
        }
        // Outside four-digit years (never the server's clock) the time is clamped, not garbled.
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: -62_167_219_200)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: -62_167_219_200.001)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: -1e12)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 253_402_300_799.999)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 253_402_300_800)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.rfc3339(Date(timeIntervalSince1970: 1e13)) == "9999-12-31T23:59:59.999Z")
        for date in dates {
            // Foundation cuts a time that lies a hair below its millisecond (x.127 is 0.12699… as a
            // double) to the millisecond before, so it is asked about the middle of the millisecond.
            let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
            let middle = Date(timeIntervalSince1970: (milliseconds + 0.5) / 1000)
            #expect(Timestamp.rfc3339(date) == reference.format(middle), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func jsonMediaTypes() {
        for accepted in ["application/json", "Application/JSON", " application/json ; charset=utf-8",
                         "application/problem+json", "application/vnd.formhouse+json;v=1"] {
            #expect(MediaType.isJSON(accepted), "\(accepted)")
        }
        for refused in ["", "text/json", "application/jsonx", "application/+json", "application/xml", "json",
                        "application/ json", "multipart/form-data; boundary=json"] {
            #expect(!MediaType.isJSON(refused), "\(refused)")
        }
    }

    @Test func ifNoneMatchLists() {
        #expect(ETagList.matches(#""3""#, #""3""#))
        #expect(ETagList.matches(#" "1" , W/"3""#, #""3""#))
        #expect(ETagList.matches("*", #""3""#))
        #expect(!ETagList.matches(#""31""#, #""3""#))
        #expect(!ETagList.matches(#"3"#, #""3""#))
        #expect(!ETagList.matches("", #""3""#))
    }

    @Test func securityHeadersReachTheAPIAndThePages() async throws {
        let server = try await InProcessServer()
        let form = try await server.client.get("/v1/forms/formworks-example")
        #expect(form.status == 200)
        #expect(form.header("X-Content-Type-Options") == "nosniff")
        #expect(form.header("Referrer-Policy") == "no-referrer")
        #expect(form.header("Content-Security-Policy") == nil)
        #expect(form.header("ETag") == #""1""#)
        let notModified = try await server.client.get("/v1/forms/formworks-example", headers: [("If-None-Match", #""1""#)])
        #expect(notModified.status == 304)
        #expect(notModified.header("ETag") == #""1""# && notModified.header("Content-Type") == nil)
        // Every file of the public directory, not only HTML: an SVG opened directly runs its scripts.
        for path in ["/", "/admin", "/f/formworks-example", "/openapi.json"] {
            let page = try await server.client.get(path)
            #expect(page.status == 200, "\(path)")
            #expect(page.header("Content-Security-Policy") == SecurityHeaders.contentSecurityPolicy, "\(path)")
            #expect(page.header("X-Frame-Options") == "DENY", "\(path)")
            #expect(page.header("X-Content-Type-Options") == "nosniff", "\(path)")
        }
        await server.finish()
    }
}
