/// Writes a streaming response body onto its connection, chunk-framed for HTTP/1.1.
///
/// `write` returns once the bytes are handed to the socket or queued below the high-water mark;
/// above it, the caller waits until the client has read, so a slow reader cannot make the server buffer without bound.
struct StreamWriter: BodyWriter {
    /// The connection closed under the stream.
    struct Closed: Error {}

    let connection: Connection
    let loop: EventLoop
    let chunked: Bool

    static let highWaterMark = 64 * 1024

    /// Larger writes go out in pieces of at most the high-water mark, each waiting for the client, so
    /// the connection never queues more than about twice the mark, whatever the caller passes.
    func write(_ bytes: [UInt8]) async throws {
        guard !bytes.isEmpty else { return }
        var start = 0
        while start < bytes.count {
            let end = min(start + Self.highWaterMark, bytes.count)
            try await writePiece(bytes[start..<end])
            start = end
        }
    }

    private func writePiece(_ bytes: ArraySlice<UInt8>) async throws {
        if !loop.inLoop { await loop.hop() }
        guard !connection.isClosed else { throw Closed() }
        if chunked {
            var frame: [UInt8] = Array(String(bytes.count, radix: 16).utf8)
            frame.reserveCapacity(frame.count + bytes.count + 4)
            frame += [13, 10]
            frame += bytes
            frame += [13, 10]
            connection.write(frame)
        } else {
            connection.write(Array(bytes))
        }
        connection.streamedBytes += bytes.count
        if connection.queuedBytes > Self.highWaterMark {
            try await connection.waitUntilDrained()
        }
    }
}
