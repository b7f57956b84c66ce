//! Reading an image of a scoresheet: any format `image` decodes (JPEG, PNG, TIFF, WebP, BMP),
//! turned upright by its EXIF orientation, with limits that refuse decompression bombs before
//! any pixel is allocated; every page of a multi-page TIFF or of a PDF file of scans
//! ([`super::pdf`]), as archives scan a long game's sheets into one file.

use std::borrow::Cow;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use image::{DynamicImage, GrayImage, ImageDecoder, ImageReader, Limits};
use rayon::prelude::*;

use super::pdf;
use super::PageError;

/// Files larger than this are refused before reading: no scan of one sheet comes near it.
pub const MAX_FILE_BYTES: u64 = 256 << 20;
/// Images wider or taller than this are refused (a 600 dpi scan of A3 is about 7,000 px).
pub const MAX_SIDE: u32 = 20_000;
/// Images with more pixels than this are refused (about a 100-megapixel photo).
pub const MAX_PIXELS: u64 = 120_000_000;

/// Files with more pages than this are refused: a long game fills two or three sheets, and a
/// file of many more is a round or a box of sheets scanned into one document, which would be
/// read as one impossible game.
pub const MAX_PAGES_PER_FILE: usize = 8;
/// Image file directories walked in a TIFF file at most, thumbnails included: a round of
/// sheets scanned into one file, with a thumbnail of each.
const MAX_TIFF_DIRECTORIES: usize = 4096;

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

/// An image file as pages of a game: the whole file (every page of a multi-page TIFF or
/// PDF file), or one page of it, written `FILE#N` (N from 1) where a round or a box of
/// sheets was scanned into one document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFile {
    pub path: PathBuf,
    /// The page, from 0; `None`: every page.
    pub page: Option<usize>,
}

impl PageFile {
    /// Every page of the file `path`.
    pub fn whole(path: impl Into<PathBuf>) -> PageFile {
        PageFile {
            path: path.into(),
            page: None,
        }
    }

    /// The pages `text` names, relative to `base`: page N of FILE for `FILE#N` (N from 1)
    /// when no file is named `FILE#N` itself and FILE is, otherwise the whole file named.
    pub fn parse(text: &str, base: &Path) -> PageFile {
        let whole = base.join(text);
        if let Some((file, number)) = text.rsplit_once('#') {
            let file = base.join(file);
            if let Ok(number @ 1..) = number.parse::<usize>() {
                if !whole.exists() && file.is_file() {
                    return PageFile {
                        path: file,
                        page: Some(number - 1),
                    };
                }
            }
        }
        PageFile::whole(whole)
    }

    /// The file's page (or every page), in order, as [`Sheet::open_pages`] names them.
    pub fn open(&self) -> Result<Vec<Sheet>, PageError> {
        match self.page {
            None => Sheet::open_pages(&self.path),
            Some(page) => Sheet::open_page(&self.path, page).map(|sheet| vec![sheet]),
        }
    }

    /// How many pages [`PageFile::open`] gives: the file's (decoding none of them) or one.
    pub fn page_count(&self) -> Result<usize, PageError> {
        if self.page.is_some() {
            return Ok(1);
        }
        let name = self.path.display().to_string();
        let bytes = read_file(&self.path, &name)?;
        let pages = Pages::of(&bytes).map_err(|cause| PageError::new(&name, cause))?;
        Ok(pages.count())
    }
}

impl std::fmt::Display for PageFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.page {
            None => write!(f, "{}", self.path.display()),
            Some(page) => write!(f, "{}#{}", self.path.display(), page + 1),
        }
    }
}

impl Sheet {
    /// Reads an image file; of a multi-page TIFF or a PDF file, its first page
    /// ([`Sheet::open_pages`] reads them all).
    pub fn open(path: &Path) -> Result<Sheet, PageError> {
        let name = path.display().to_string();
        Sheet::from_bytes(name.clone(), &read_file(path, &name)?)
    }

    /// Reads every page of an image file, in order: each full-size page of a multi-page TIFF
    /// (reduced-resolution copies, such as thumbnails, left out), each page's scan of a PDF
    /// file, or the one page of any other image. Pages of a file of several are named
    /// `FILE (page N of M)`, in errors too. A file of more than [`MAX_PAGES_PER_FILE`] pages
    /// is refused: it holds more than one game ([`Sheet::open_page`] reads one of them).
    pub fn open_pages(path: &Path) -> Result<Vec<Sheet>, PageError> {
        let name = path.display().to_string();
        Sheet::pages_from_bytes(name.clone(), &read_file(path, &name)?)
    }

    /// Page `page` (from 0) of an image file, named as [`Sheet::open_pages`] names it.
    pub fn open_page(path: &Path, page: usize) -> Result<Sheet, PageError> {
        let name = path.display().to_string();
        let bytes = read_file(path, &name)?;
        let pages = Pages::of(&bytes).map_err(|cause| PageError::new(&name, cause))?;
        let count = pages.count();
        if page >= count {
            let pages = if count == 1 { "page" } else { "pages" };
            return Err(PageError::new(
                &name,
                format!(
                    "there is no page {}: the file has {count} {pages}",
                    page + 1
                ),
            ));
        }
        pages.page(&name, page)
    }

    /// Every page of an image held in memory, as [`Sheet::open_pages`]; `name` labels them.
    pub fn pages_from_bytes(
        name: impl Into<String>,
        bytes: &[u8],
    ) -> Result<Vec<Sheet>, PageError> {
        let name = name.into();
        let pages = Pages::of(bytes).map_err(|cause| PageError::new(&name, cause))?;
        let count = pages.count();
        if count > MAX_PAGES_PER_FILE {
            return Err(PageError::new(
                &name,
                format!(
                    "the file holds {count} pages, more than the {MAX_PAGES_PER_FILE} sheets of \
                     one game at most: give each game's pages as files of their own, or its \
                     pages as FILE#N (batch --each-page reads every page as a game)"
                ),
            ));
        }
        (0..count).map(|page| pages.page(&name, page)).collect()
    }

    /// Decodes an image held in memory (of a multi-page file, its first page); `name` labels
    /// it in errors.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Result<Sheet, PageError> {
        let name = name.into();
        if bytes.is_empty() {
            return Err(PageError::new(&name, "the file is empty"));
        }
        if pdf::is_pdf(bytes) {
            let image = pdf::ScannedPdf::load(bytes)
                .and_then(|file| file.page(0))
                .map_err(|cause| PageError::new(&name, cause))?;
            return Ok(Sheet::from_image(name, image));
        }
        let image = decode(bytes).map_err(|cause| PageError::new(&name, cause))?;
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

/// The pages of an image file held in memory, found once; each decoded when asked for.
enum Pages<'b> {
    /// A file of one picture: any image `image` decodes, or a TIFF file of one full-size
    /// page.
    One(&'b [u8]),
    /// A TIFF file of several full-size pages: where each page's directory starts.
    Tiff(&'b [u8], Vec<u64>),
    Pdf(Box<pdf::ScannedPdf>),
}

impl<'b> Pages<'b> {
    fn of(bytes: &'b [u8]) -> Result<Pages<'b>, String> {
        if pdf::is_pdf(bytes) {
            return pdf::ScannedPdf::load(bytes).map(|file| Pages::Pdf(Box::new(file)));
        }
        let directories = tiff_page_directories(bytes)?;
        Ok(match directories.len() {
            0 | 1 => Pages::One(bytes),
            _ => Pages::Tiff(bytes, directories),
        })
    }

    fn count(&self) -> usize {
        match self {
            Pages::One(_) => 1,
            Pages::Tiff(_, directories) => directories.len(),
            Pages::Pdf(file) => file.page_count(),
        }
    }

    /// Page `page` (from 0) of the file `name`, named `NAME (page N of M)` when the file has
    /// several.
    fn page(&self, name: &str, page: usize) -> Result<Sheet, PageError> {
        let name = match self.count() {
            1 => name.to_string(),
            count => format!("{name} (page {} of {count})", page + 1),
        };
        match self {
            Pages::One(bytes) => Sheet::from_bytes(name, bytes),
            // `image` decodes a TIFF file's first page only: the page is decoded from a copy
            // of the file whose header points at its directory.
            Pages::Tiff(bytes, directories) => {
                let mut pointed = bytes.to_vec();
                point_header_at(&mut pointed, directories[page]);
                Sheet::from_bytes(name, &pointed)
            }
            Pages::Pdf(file) => file
                .page(page)
                .map(|image| Sheet::from_image(&name, image))
                .map_err(|cause| PageError::new(&name, cause)),
        }
    }
}

/// The bytes of the image file `path` (`name` in errors), refused when it is a folder or far
/// too large to be a scan of a sheet.
fn read_file(path: &Path, name: &str) -> Result<Vec<u8>, PageError> {
    let meta = std::fs::metadata(path).map_err(|e| PageError::io(name, e))?;
    if meta.is_dir() {
        return Err(PageError::new(name, "is a directory, not an image"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(PageError::new(
            name,
            format!(
                "{} bytes is far too large for an image of a scoresheet (limit {MAX_FILE_BYTES})",
                meta.len()
            ),
        ));
    }
    std::fs::read(path).map_err(|e| PageError::io(name, e))
}

/// Where each full-size page's image file directory starts in the TIFF file `bytes`, in page
/// order; none when `bytes` are not a TIFF file the `tiff` crate can open (`image` then says
/// what is wrong with them). Directories marked as reduced-resolution copies of a page
/// (TIFF 6.0: `NewSubfileType` bit 0, or the old `SubfileType` 2) are left out.
fn tiff_page_directories(bytes: &[u8]) -> Result<Vec<u64>, String> {
    if tiff_header(bytes).is_none() {
        return Ok(Vec::new());
    }
    let Ok(mut decoder) = tiff::decoder::Decoder::new(Cursor::new(bytes)) else {
        return Ok(Vec::new());
    };
    let mut pages = Vec::new();
    for directory in 1..=MAX_TIFF_DIRECTORIES {
        let new_kind = decoder.find_tag_unsigned::<u32>(tiff::tags::Tag::NewSubfileType);
        let old_kind = decoder.find_tag_unsigned::<u16>(tiff::tags::Tag::SubfileType);
        let reduced =
            matches!(new_kind, Ok(Some(kind)) if kind & 1 == 1) || matches!(old_kind, Ok(Some(2)));
        if let (false, Some(pointer)) = (reduced, decoder.ifd_pointer()) {
            pages.push(pointer.0);
        }
        if !decoder.more_images() {
            break;
        }
        if directory == MAX_TIFF_DIRECTORIES {
            return Err(format!(
                "the file holds more than {MAX_TIFF_DIRECTORIES} images"
            ));
        }
        decoder.next_image().map_err(|e| {
            format!(
                "the TIFF file's directory {} cannot be read: {e}",
                directory + 1
            )
        })?;
    }
    Ok(pages)
}

/// A TIFF file's byte order (whether little-endian) and kind (whether BigTIFF), from its
/// header.
fn tiff_header(bytes: &[u8]) -> Option<(bool, bool)> {
    match bytes.get(..4)? {
        [b'I', b'I', 42, 0] => Some((true, false)),
        [b'I', b'I', 43, 0] => Some((true, true)),
        [b'M', b'M', 0, 42] => Some((false, false)),
        [b'M', b'M', 0, 43] => Some((false, true)),
        _ => None,
    }
}

/// Points the header of the TIFF file `bytes` at the image file directory at `offset`, so
/// that a decoder takes that directory's page for the file's first.
fn point_header_at(bytes: &mut [u8], offset: u64) {
    let Some((little_endian, big_tiff)) = tiff_header(bytes) else {
        return;
    };
    let (field, value) = match (big_tiff, little_endian) {
        (false, true) => (4..8, (offset as u32).to_le_bytes().to_vec()),
        (false, false) => (4..8, (offset as u32).to_be_bytes().to_vec()),
        (true, true) => (8..16, offset.to_le_bytes().to_vec()),
        (true, false) => (8..16, offset.to_be_bytes().to_vec()),
    };
    if let Some(field) = bytes.get_mut(field) {
        field.copy_from_slice(&value);
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

/// Decodes an image file's (first) picture within the size limits, EXIF orientation applied.
pub(super) fn decode(bytes: &[u8]) -> Result<DynamicImage, String> {
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read the file: {e}"))?;
    // `image` decodes BigTIFF files but does not know them by their header.
    if reader.format().is_none() && tiff_header(bytes).is_some() {
        reader.set_format(image::ImageFormat::Tiff);
    }
    if reader.format().is_none() {
        return Err(
            "not an image in a format scoresheet reads (JPEG, PNG, TIFF, WebP, BMP, PDF)".into(),
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

    /// A TIFF file of grey pages `(width, height, shade, thumbnail)`, every pixel of a page
    /// `shade`; a thumbnail is marked as a reduced-resolution copy (`NewSubfileType` 1).
    fn tiff(pages: &[(u32, u32, u8, bool)], big: bool) -> Vec<u8> {
        use tiff::encoder::{colortype::Gray8, TiffEncoder, TiffKind};
        fn write<K: TiffKind>(
            mut encoder: TiffEncoder<&mut Cursor<Vec<u8>>, K>,
            pages: &[(u32, u32, u8, bool)],
        ) {
            for &(width, height, shade, thumbnail) in pages {
                let mut page = encoder.new_image::<Gray8>(width, height).unwrap();
                if thumbnail {
                    let directory = page.encoder();
                    directory
                        .write_tag(tiff::tags::Tag::NewSubfileType, 1u32)
                        .unwrap();
                }
                page.write_data(&vec![shade; (width * height) as usize])
                    .unwrap();
            }
        }
        let mut bytes = Cursor::new(Vec::new());
        if big {
            write(TiffEncoder::new_big(&mut bytes).unwrap(), pages);
        } else {
            write(TiffEncoder::new(&mut bytes).unwrap(), pages);
        }
        bytes.into_inner()
    }

    #[test]
    fn reads_every_page_of_a_multi_page_tiff_but_its_thumbnails() {
        let pages = [(30, 20, 10, false), (6, 4, 99, true), (40, 25, 200, false)];
        for big in [false, true] {
            let bytes = tiff(&pages, big);
            let sheets = Sheet::pages_from_bytes("round.tif", &bytes).unwrap();
            let seen: Vec<(&str, u32, u32, u8)> = sheets
                .iter()
                .map(|s| {
                    (
                        s.name.as_str(),
                        s.width(),
                        s.height(),
                        s.grey()[(1, 1)].0[0],
                    )
                })
                .collect();
            assert_eq!(
                seen,
                [
                    ("round.tif (page 1 of 2)", 30, 20, 10),
                    ("round.tif (page 2 of 2)", 40, 25, 200)
                ],
                "BigTIFF: {big}"
            );
            // The file's first page, as `Sheet::open` and `from_bytes` read it.
            let first = Sheet::from_bytes("round.tif", &bytes).unwrap();
            assert_eq!((first.width(), first.height()), (30, 20));
        }
        // One page with its thumbnail, or a TIFF of one page: the file's own name.
        let bytes = tiff(&[(30, 20, 10, false), (6, 4, 99, true)], false);
        let sheets = Sheet::pages_from_bytes("one.tif", &bytes).unwrap();
        assert_eq!(sheets.len(), 1);
        assert_eq!(
            (sheets[0].name.as_str(), sheets[0].width()),
            ("one.tif", 30)
        );
        let sheets = Sheet::pages_from_bytes("ok.png", &png(30, 20)).unwrap();
        assert_eq!((sheets.len(), sheets[0].name.as_str()), (1, "ok.png"));
    }

    #[test]
    fn refuses_a_tiff_of_more_pages_than_a_game_fills() {
        let pages = vec![(8, 8, 128, false); MAX_PAGES_PER_FILE + 1];
        let err = Sheet::pages_from_bytes("box.tif", &tiff(&pages, false))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("box.tif: ") && err.contains("holds 9 pages"),
            "{err}"
        );
        let pages = vec![(8, 8, 128, false); MAX_PAGES_PER_FILE];
        assert_eq!(
            Sheet::pages_from_bytes("long.tif", &tiff(&pages, false))
                .unwrap()
                .len(),
            MAX_PAGES_PER_FILE
        );
        // A page whose directory is cut off: the file and the page are named.
        let mut bytes = tiff(&[(30, 20, 10, false), (40, 25, 200, false)], false);
        bytes.truncate(bytes.len() - 4);
        let err = Sheet::pages_from_bytes("cut.tif", &bytes)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("cut.tif"), "{err}");
    }

    #[test]
    fn points_a_tiff_header_at_a_directory_in_either_byte_order() {
        let mut little = *b"II*\0\0\0\0\0";
        point_header_at(&mut little, 0x0102_0304);
        assert_eq!(little[4..], [4, 3, 2, 1]);
        let mut big_endian = *b"MM\0*\0\0\0\0";
        point_header_at(&mut big_endian, 0x0102_0304);
        assert_eq!(big_endian[4..], [1, 2, 3, 4]);
        let mut big_tiff = [b'M', b'M', 0, 43, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        point_header_at(&mut big_tiff, 0x0102_0304);
        assert_eq!(big_tiff[8..], [0, 0, 0, 0, 1, 2, 3, 4]);
        let mut not_tiff = *b"\x89PNG\r\n\x1a\n";
        point_header_at(&mut not_tiff, 7);
        assert_eq!(&not_tiff, b"\x89PNG\r\n\x1a\n");
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
