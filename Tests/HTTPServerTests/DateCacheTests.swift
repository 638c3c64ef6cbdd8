@testable import HTTPServer
import Testing

@Suite struct DateCacheTests {
    @Test func formatsTheDateFieldOncePerSecond() {
        var cache = DateCache()
        cache.update(epochSeconds: 784_111_777)
        #expect(String(decoding: cache.line, as: UTF8.self) == "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n")
        let first = cache.line
        cache.update(epochSeconds: 784_111_777)
        #expect(cache.line.withUnsafeBufferPointer { $0.baseAddress } == first.withUnsafeBufferPointer { $0.baseAddress })
        cache.update(epochSeconds: 784_111_778)
        #expect(String(decoding: cache.line, as: UTF8.self) == "Date: Sun, 06 Nov 1994 08:49:38 GMT\r\n")
    }
}
