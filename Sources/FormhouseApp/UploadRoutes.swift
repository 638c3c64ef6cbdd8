import FileStorage
import FormEngine
import FormStore
import Foundation
import HTTPServer

/// The upload routes clients call without a token: simple uploads and tus (docs/api.md, "Files").
struct UploadRoutes {
    let uploads: UploadService
    let tus: TusUploads
    /// Byte cap of any upload's body, checked by the server before the handler reads it.
    let maxFileBytes: Int

    func register(on router: inout Router<AppContext>) {
        router.on(.post, "/v1/forms/{id}/uploads", body: .streamed(maxBytes: maxFileBytes)) { request, _ in
            try await simpleUpload(request)
        }
        router.on(.options, "/v1/forms/{id}/tus/") { _, _ in
            Response(status: 204, headers: HTTPHeaders([
                TusUploads.resumable, ("Tus-Version", TusUploads.version), ("Tus-Extension", TusUploads.extensions),
                ("Tus-Max-Size", String(maxFileBytes)),
            ]))
        }
        router.on(.post, "/v1/forms/{id}/tus/") { request, _ in
            let formID = try request.formID()
            let (record, length) = try await tus.create(formID: formID, headers: request.headers, client: request.remoteAddress)
            var headers = tusHeaders(record)
            headers.set("Location", "/v1/forms/\(formID)/tus/\(record.id)")
            headers.set("Upload-Offset", String(record.isComplete ? length : 0))
            return Response(status: 201, headers: headers)
        }
        router.on(.head, "/v1/forms/{id}/tus/{uid}") { request, _ in
            try TusUploads.checkVersion(request.headers)
            let record = try await tus.status(formID: try request.formID(), id: try request.parameters.require("uid"))
            var headers = tusHeaders(record)
            headers.set("Upload-Offset", String(record.received))
            if let length = record.declaredSize ?? (record.isComplete ? record.received : nil) {
                headers.set("Upload-Length", String(length))
            }
            headers.set("Cache-Control", "no-store")
            return Response(status: 200, headers: headers)
        }
        router.on(.patch, "/v1/forms/{id}/tus/{uid}", body: .streamed(maxBytes: maxFileBytes)) { request, _ in
            guard let body = request.bodyStream else { throw APIProblem(.invalidBody, "The PATCH has no body.") }
            let (record, offset) = try await tus.append(
                formID: try request.formID(), id: try request.parameters.require("uid"), headers: request.headers,
                body: body, client: request.remoteAddress)
            var headers = tusHeaders(record)
            headers.set("Upload-Offset", String(offset))
            return Response(status: 204, headers: headers)
        }
        router.on(.delete, "/v1/forms/{id}/tus/{uid}") { request, _ in
            try await tus.terminate(formID: try request.formID(), id: try request.parameters.require("uid"), headers: request.headers)
            return Response(status: 204, headers: HTTPHeaders([TusUploads.resumable]))
        }
    }

    private func simpleUpload(_ request: Request) async throws -> Response {
        guard let body = request.bodyStream else { throw APIProblem(.invalidBody, "The upload has no body.") }
        if let coding = request.headers["Content-Encoding"], coding.lowercased() != "identity" {
            throw APIProblem.unsupportedMediaType("Send the file's bytes as they are, without a Content-Encoding.")
        }
        let record = try await uploads.receive(
            formID: try request.formID(), field: try request.queryValue("field"),
            contentType: request.headers["Content-Type"],
            filename: request.headers["Content-Disposition"].flatMap(Filename.fromContentDisposition),
            body: body, client: request.remoteAddress, languages: request.languagePreferences())
        var response = Response.json(UploadJSON.bytes(record), status: 201)
        response.headers.set("Location", "/v1/forms/\(record.formID)/tus/\(record.id)")
        return response
    }

    /// What every tus answer about an upload carries.
    private func tusHeaders(_ record: UploadRecord) -> HTTPHeaders {
        var headers = HTTPHeaders([TusUploads.resumable])
        if !record.isComplete {
            headers.set("Upload-Expires", HTTPDate.format(epochSeconds: Int(record.expiresAt.timeIntervalSince1970)))
        } else {
            headers.set("Upload-Id", record.id)
        }
        return headers
    }
}

/// An upload as the API shows it.
enum UploadJSON {
    static func bytes(_ record: UploadRecord) -> [UInt8] {
        var object: [(String, JSONValue)] = [
            ("id", .string(record.id)), ("formId", .string(record.formID)), ("field", .string(record.field)),
            ("contentType", .string(record.contentType)), ("size", .number(Double(record.received))),
            ("sha256", record.sha256.map(JSONValue.string) ?? .null), ("filename", record.filename.map(JSONValue.string) ?? .null),
            ("expiresAt", .string(Timestamp.rfc3339(record.expiresAt))),
        ]
        if let submission = record.submissionID { object.append(("submissionId", .string(submission))) }
        var json = JSONObject()
        for (key, value) in object { json[key] = value }
        return JSONValue.object(json).serialized()
    }
}
