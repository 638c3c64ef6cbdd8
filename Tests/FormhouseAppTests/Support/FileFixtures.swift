import Foundation
@testable import FormhouseApp

/// Real files of the formats uploads meet, small enough to live in the tests.
enum FileFixtures {
    /// A 1×1 PNG.
    static let png = [UInt8](Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")!)
    /// A 1×1 baseline JPEG.
    static let jpeg = [UInt8](Data(base64Encoded:
        "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=")!)
    /// A one-page PDF.
    static let pdf = Array("""
        %PDF-1.4
        1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
        2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
        3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >> endobj
        trailer << /Root 1 0 R >>
        %%EOF
        """.utf8)
    /// A page of HTML, as an upload disguised as a photo would hold.
    static let html = Array("<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".utf8)

    /// A form with a required photo (images up to 200 000 bytes) and up to two documents.
    static let claimForm = #"""
    {"id": "claim", "title": "Claim",
     "components": [
       {"text": {"id": "name", "title": "Name"}},
       {"file": {"id": "photo", "title": "Photo", "required": true, "accept": ["image/*"], "maxSize": 200000}},
       {"file": {"id": "docs", "title": "Documents", "accept": ["application/pdf", "image/*"], "maxFiles": 2}},
       {"group": {"id": "items", "title": "Items", "repeat": {"min": 0, "max": 3}, "components": [
         {"file": {"id": "receipt", "title": "Receipt"}}]}}
     ]}
    """#

    /// A second form, whose uploads must not serve the first.
    static let otherForm = #"""
    {"id": "other", "title": "Other", "components": [{"file": {"id": "photo", "title": "Photo"}}]}
    """#

    /// A PDF header and random bytes up to `size`: incompressible, and large enough to need parts.
    static func pdf(size: Int) -> [UInt8] {
        let header = Array("%PDF-1.7\n".utf8)
        let random = FileHandle(forReadingAtPath: "/dev/urandom")!.readData(ofLength: size - header.count)
        return header + [UInt8](random)
    }

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        SubmissionService.hash(bytes)
    }
}
