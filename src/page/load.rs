//! Reading an image of a scoresheet: any format `image` decodes (JPEG, PNG, TIFF, WebP),
//! turned upright by its EXIF orientation, with limits that refuse decompression bombs before
//! any pixel is allocated.

use std::borrow::Cow;
use std::io::{BufRead, Cursor, Seek};
use std::path::Path;

use image::{DynamicImage, GrayImage, ImageDecoder, ImageReader, Limits};
use rayon::prelude::*;

use super::PageError;

/// Files larger than this are refused before reading: no scan of one sheet comes near it.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Images wider or taller than this are refused (a 600 dpi scan of A3 is about 7,000 px).
pub const MAX_SIDE: u32 = 20_000;
/// Images with more pixels than this are refused (about a 100-megapixel photo).
pub const MAX_PIXELS: u64 = 120_000_000;

/// What is wrong with a torn file ([`Sheet::torn`]), in every message that says so.
pub const TORN_JPEG: &str = "the JPEG file ends before its image does (torn, or not fully copied)";

/// A loaded scoresheet image, upright, with the name errors and reports refer to it by.
#[derive(Debug, Clone)]
pub struct Sheet {
    /// The file name (or another label) the image came from.
    pub name: String,
    /// The pixels as decoded, EXIF orientation applied.
    pub image: DynamicImage,
    /// The file ends before its image does (a JPEG cut short by a failed copy or upload):
    /// the decoder fills what is missing, so the page may show only part of the sheet.
    pub torn: bool,
}

impl Sheet {
    /// Reads an image file.
    pub fn open(path: &Path) -> Result<Sheet, PageError> {
        let name = path.display().to_string();
        let meta = std::fs::metadata(path).map_err(|e| PageError::io(&name, e))?;
        if meta.is_dir() {
            return Err(PageError::new(&name, "is a directory, not an image"));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(PageError::new(
                &name,
                format!(
                    "{} bytes is far too large for an image of a scoresheet (limit {MAX_FILE_BYTES})",
                    meta.len()
                ),
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| PageError::io(&name, e))?;
        Sheet::from_bytes(name, &bytes)
    }

    /// Decodes an image held in memory; `name` labels it in errors.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Result<Sheet, PageError> {
        let name = name.into();
        if bytes.is_empty() {
            return Err(PageError::new(&name, "the file is empty"));
        }
        let image = decode(Cursor::new(bytes)).map_err(|cause| PageError::new(&name, cause))?;
        Ok(Sheet {
            name,
            image,
            torn: jpeg_ends_early(bytes),
        })
    }

    /// Wraps pixels already in memory.
    pub fn from_image(name: impl Into<String>, image: DynamicImage) -> Sheet {
        Sheet {
            name: name.into(),
            image,
            torn: false,
        }
    }

    /// `error`, saying also that the file is torn when it is: the likelier cause of a page
    /// where nothing is found.
    pub fn explain(&self, error: PageError) -> PageError {
        if !self.torn {
            return error;
        }
        PageError {
            cause: format!(
                "{TORN_JPEG}, so only part of the page could be decoded; {}",
                error.cause
            ),
            ..error
        }
    }

    pub fn width(&self) -> u32 {
        self.image.width()
    }

    pub fn height(&self) -> u32 {
        self.image.height()
    }

    /// The image as grey levels (0 black, 255 white); a grey image is not copied.
    pub fn grey(&self) -> Cow<'_, GrayImage> {
        if let Some(grey) = self.image.as_luma8() {
            return Cow::Borrowed(grey);
        }
        let Some(rgb) = self.image.as_rgb8() else {
            return Cow::Owned(self.image.to_luma8());
        };
        // Rec. 601 luma in integers, row by row in parallel: the generic conversion is the
        // slowest step for a colour photo.
        let (width, height) = rgb.dimensions();
        let mut grey = GrayImage::new(width, height);
        grey.par_chunks_mut(width as usize)
            .zip(rgb.par_chunks(width as usize * 3))
            .for_each(|(out, row)| {
                for (g, p) in out.iter_mut().zip(row.chunks_exact(3)) {
                    *g = ((77 * p[0] as u32 + 150 * p[1] as u32 + 29 * p[2] as u32 + 128) >> 8)
                        as u8;
                }
            });
        Cow::Owned(grey)
    }
}

/// Whether `bytes` hold a JPEG whose last scan has no end-of-image marker after it. Markers
/// cannot occur inside a scan's coded data (an `FF` there is followed by `00`), so a file cut
/// anywhere in its last scan lacks the `FF D9` after the last `FF DA`; an `FF D9` from an
/// embedded thumbnail comes before it, and data some cameras append after the end marker
/// comes after it.
fn jpeg_ends_early(bytes: &[u8]) -> bool {
    if !bytes.starts_with(&[0xFF, 0xD8]) {
        return false;
    }
    let last = |marker: u8| bytes.windows(2).rposition(|w| w == [0xFF, marker]);
    match (last(0xDA), last(0xD9)) {
        (Some(scan), Some(end)) => end < scan,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

fn decode(reader: impl BufRead + Seek) -> Result<DynamicImage, String> {
    let mut reader = ImageReader::new(reader)
        .with_guessed_format()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    if reader.format().is_none() {
        return Err(
            "not an image in a format scoresheet reads (JPEG, PNG, TIFF, WebP, BMP)".into(),
        );
    }
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_PIXELS * 4 + (64 << 20));
    reader.limits(limits);
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| format!("not a readable image: {e}"))?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err("the image has no pixels".into());
    }
    if width > MAX_SIDE || height > MAX_SIDE || width as u64 * height as u64 > MAX_PIXELS {
        return Err(format!(
            "a {width} x {height} image is too large to be a photo or scan of a sheet \
             (at most {MAX_SIDE} px a side and {} megapixels)",
            MAX_PIXELS / 1_000_000
        ));
    }
    // A broken EXIF block is no reason to refuse the pixels: read them as stored.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(|e| match e {
        image::ImageError::Limits(l) => format!("the image is too large to decode: {l}"),
        other => format!("the image data is corrupt or truncated: {other}"),
    })?;
    image.apply_orientation(orientation);
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{ImageEncoder, RgbImage};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        image::codecs::png::PngEncoder::new(&mut bytes)
            .write_image(
                RgbImage::new(width, height).as_raw(),
                width,
                height,
                image::ExtendedColorType::Rgb8,
            )
            .unwrap();
        bytes
    }

    #[test]
    fn reads_a_png_and_refuses_what_is_not_an_image() {
        let sheet = Sheet::from_bytes("ok.png", &png(30, 20)).unwrap();
        assert_eq!((sheet.width(), sheet.height()), (30, 20));
        let err = Sheet::from_bytes("notes.txt", b"1. e4 e5 2. Nf3").unwrap_err();
        assert!(err.to_string().starts_with("notes.txt: "), "{err}");
        let mut truncated = png(300, 200);
        truncated.truncate(60);
        let err = Sheet::from_bytes("cut.png", &truncated).unwrap_err();
        assert!(err.to_string().contains("cut.png"), "{err}");
        assert!(Sheet::from_bytes("empty.png", &[]).is_err());
    }

    #[test]
    fn tells_a_jpeg_cut_short_from_a_whole_one() {
        let image = RgbImage::from_fn(64, 48, |x, y| {
            image::Rgb([(x * 4) as u8, (y * 5) as u8, 90])
        });
        let mut whole = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut whole, 90)
            .write_image(image.as_raw(), 64, 48, image::ExtendedColorType::Rgb8)
            .unwrap();
        assert!(!jpeg_ends_early(&whole));
        assert!(!Sheet::from_bytes("whole.jpg", &whole).unwrap().torn);
        // Data a camera appends after the end marker is not a cut.
        let mut trailed = whole.clone();
        trailed.extend_from_slice(b"SEFT trailer");
        assert!(!jpeg_ends_early(&trailed));
        let cut = &whole[..whole.len() - 40];
        assert!(jpeg_ends_early(cut));
        assert!(!jpeg_ends_early(&png(30, 20)));
    }

    #[test]
    fn refuses_a_decompression_bomb_from_its_header() {
        // A valid PNG header claiming 60,000 x 60,000 pixels, and nothing behind it.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&60_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&60_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = Sheet::from_bytes("bomb.png", &bytes)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("bomb.png: "), "{err}");
        assert!(err.contains("too large") || err.contains("limit"), "{err}");
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &byte in data {
            crc ^= byte as u32;
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
