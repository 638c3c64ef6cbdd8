import Foundation

/// What a file's first bytes say it is, by the signatures of the formats people upload: a client's
/// `Content-Type` is a claim, and a page of HTML sent as `image/jpeg` must not be kept as a photo.
enum MediaSniffer {
    /// Bytes to look at: enough for every signature below.
    static let prefixLength = 512

    /// The media type the bytes' own signature names, or nil when they carry none this knows.
    static func mediaType(of bytes: ArraySlice<UInt8>) -> String? {
        let b = Array(bytes.prefix(prefixLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            b.count >= offset + signature.count && Array(b[offset..<(offset + signature.count)]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return "image/gif" }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return "image/webp" }
        if starts(Array("ftyp".utf8), at: 4), b.count >= 12 {
            switch String(decoding: b[8..<12], as: UTF8.self) {
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return "image/heic"
            case "mif1", "msf1": return "image/heif"
            case "avif", "avis": return "image/avif"
            case "qt  ": return "video/quicktime"
            case "isom", "iso2", "mp41", "mp42", "avc1", "M4V ", "dash": return "video/mp4"
            case "M4A ": return "audio/mp4"
            default: return nil
            }
        }
        if starts(Array("%PDF-".utf8)) { return "application/pdf" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts(Array("II*\u{0}".utf8)) || starts(Array("MM\u{0}*".utf8)) { return "image/tiff" }
        if starts(Array("BM".utf8)), b.count >= 14 { return "image/bmp" }
        if isMarkup(b) { return "text/html" }
        return nil
    }

    /// Whether `declared` is contradicted by `sniffed`: a type with a signature must have its own,
    /// and an image, audio or video type must not turn out to be markup or another format.
    static func contradicts(declared: String, sniffed: String?) -> Bool {
        let declared = essence(declared)
        if let sniffed {
            if sniffed == declared { return false }
            // HEIC files are often labelled HEIF and the other way round.
            if ["image/heic", "image/heif"].contains(sniffed) && ["image/heic", "image/heif"].contains(declared) { return false }
            // Office documents are ZIP archives inside.
            if sniffed == "application/zip" && (declared.hasPrefix("application/vnd.openxmlformats") || declared.hasPrefix("application/vnd.oasis")) {
                return false
            }
            if sniffed == "text/html" { return declared != "text/html" }
            return hasSignature(declared) || declared.hasPrefix("image/") || declared.hasPrefix("video/") || declared.hasPrefix("audio/")
        }
        // No known signature: fine for text and other documents, not for a format that always has one.
        return hasSignature(declared)
    }

    /// The type to keep: the signature's when the bytes have one, else what the client declared.
    static func storedType(declared: String, sniffed: String?) -> String {
        sniffed ?? essence(declared)
    }

    /// `type/subtype` in lowercase, without parameters.
    static func essence(_ mediaType: String) -> String {
        let base = mediaType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? mediaType
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// Whether `mediaType` is well formed (`type/subtype`, token characters).
    static func isWellFormed(_ mediaType: String) -> Bool {
        let parts = essence(mediaType).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 127 && part.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x7A) || "!#$&-^_.+".utf8.contains(byte)
            }
        }
    }

    private static let signed: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif", "image/tiff",
        "image/bmp", "application/pdf", "application/zip", "video/mp4", "video/quicktime", "audio/mp4",
    ]

    private static func hasSignature(_ mediaType: String) -> Bool {
        signed.contains(mediaType)
    }

    /// Markup a browser would render as a page: what an upload disguised as an image usually is.
    private static func isMarkup(_ bytes: [UInt8]) -> Bool {
        var text = String(decoding: bytes.prefix(256), as: UTF8.self).lowercased()
        if text.hasPrefix("\u{feff}") { text.removeFirst() }
        let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return ["<!doctype html", "<html", "<script", "<head", "<body", "<iframe"].contains { trimmed.hasPrefix($0) }
    }
}
