import FormStore
import Foundation

/// An upload of `formID`'s `photo` input from 192.0.2.1, created at a whole second (so that it reads
/// back equal) and expiring a day later; complete with a size, hash and type when `complete`.
public func newUpload(
    id: String = RandomID.make(prefix: "upl_"), formID: String = "signup", complete: Bool = true,
    createdAt: Date = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)),
    clientAddress: String? = "192.0.2.1"
) -> UploadRecord {
    UploadRecord(
        id: id, formID: formID, field: "photo", filename: "photo of \(id).jpg", contentType: "image/jpeg",
        declaredSize: complete ? 2048 : nil, received: complete ? 2048 : 0,
        sha256: complete ? String(repeating: "ab", count: 32) : nil, isComplete: complete, storageKey: "files/\(id)",
        clientAddress: clientAddress, createdAt: createdAt, expiresAt: createdAt.addingTimeInterval(86_400))
}
