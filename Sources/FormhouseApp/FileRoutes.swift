import FileStorage
import FormStore
import Foundation
import HTTPServer

/// Downloads of stored files: by signed link (`GET /v1/files/{id}`, for webhook receivers) and by
/// admins (`GET /v1/admin/files/{id}`). Whatever type was uploaded, a download is an attachment the
/// browser neither sniffs nor runs.
struct FileRoutes {
    let store: any FormStore
    let storage: any BlobStorage
    let links: FileLinks

    /// Bytes read from storage at a time; the response's own backpressure bounds what is queued.
    static let chunkBytes = 256 * 1024

    func registerPublic(on router: inout Router<AppContext>) {
        router.on(.get, "/v1/files/{fid}") { request, _ in
            let id = try request.parameters.require("fid")
            switch links.check(id: id, expires: try request.queryValue("expires"), signature: try request.queryValue("signature")) {
            case .invalid:
                throw APIProblem(.fileLinkInvalid, "This link is not one this server signed for this file.")
            case .expired:
                throw APIProblem(.fileLinkExpired, "This link has expired; ask the form's owner for the file.")
            case nil:
                break
            }
            // Links are only handed out for files of stored submissions.
            guard let record = try await store.upload(id: id), record.isComplete, record.submissionID != nil else {
                throw APIProblem.notFound("There is no file '\(id)'.")
            }
            return download(record)
        }
    }

    func registerAdmin(on admin: inout AdminRoutes) {
        admin.on(.get, "/files/{fid}", needs: .init(.read, .file("fid"))) { request, caller in
            let id = try request.parameters.require("fid")
            guard id.hasPrefix("upl_"), let record = try await caller.upload(id, from: store), record.isComplete else {
                throw APIProblem.notFound("There is no file '\(id)'.")
            }
            return download(record)
        }
    }

    private func download(_ record: UploadRecord) -> Response {
        var headers = HTTPHeaders([
            ("Content-Type", record.contentType),
            ("Content-Disposition", Filename.contentDisposition(record.filename)),
            ("Content-Security-Policy", "sandbox"),
            ("Cache-Control", "private, no-store"),
        ])
        // RFC 9530: the receiver can check what it got against what was uploaded.
        if let hex = record.sha256, let digest = Hex.decode(hex.utf8) {
            headers.set("Repr-Digest", "sha-256=:\(Data(digest).base64EncodedString()):")
        }
        let storage = self.storage
        return Response(status: 200, headers: headers, body: .stream { writer in
            try await storage.read(key: record.storageKey, chunkSize: Self.chunkBytes) { try await writer.write($0) }
        })
    }
}
