import Testing

/// One client address cannot take every connection slot.
@Suite struct ConnectionsPerAddressTests {
    @Test func anAddressPastItsShareIsClosedAtOnceAndOthersAreServed() async throws {
        try await withServer(testRouter(), configure: { $0.maxConnectionsPerAddress = 3 }) { port, server in
            let held = try (0..<3).map { _ in try RawClient(port: port) }
            for client in held { #expect(try client.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200) }
            // The fourth from 127.0.0.1 is closed at once; from another address (::1) it is served.
            let refused = try RawClient(port: port)
            #expect(refused.isClosedByServer())
            if let other = try? RawClient(port: port, host: "::1") {
                #expect(try other.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
            }
            // A closed connection gives its slot back.
            held[0].close()
            var served = false
            for _ in 0..<100 where !served {
                try await Task.sleep(for: .milliseconds(20))
                let again = try RawClient(port: port)
                served = (try? again.exchange("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").status) == 200
            }
            #expect(served)
        }
    }
}
