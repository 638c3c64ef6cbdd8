extension BlobWriter {
    /// Appends the rest of the open file `descriptor` in chunks of `chunkSize`, then finishes;
    /// aborts on any failure, so that nothing of the object remains.
    func finish(copying descriptor: Int32, path: String, chunkSize: Int) async throws {
        do {
            while true {
                let chunk = try LocalFiles.readChunk(descriptor, upTo: chunkSize, path: path)
                if chunk.isEmpty { break }
                try await append(chunk)
            }
            _ = try await finish()
        } catch {
            await abort()
            throw error
        }
    }
}
