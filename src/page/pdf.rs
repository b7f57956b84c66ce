//! The scans in a PDF file, as archives and scanners store scoresheets: each page's largest
//! image, decoded as the page shows it (its `/Rotate` applied). Pages drawn as text and lines
//! hold no scan and are refused, as are JPEG 2000 and JBIG2 images, which no crate we build
//! with decodes.

use image::{DynamicImage, GrayImage, RgbImage};
use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::load::{decode, MAX_PIXELS, MAX_SIDE};

/// Whether `bytes` are a PDF file: its header within the first 1,024 bytes (ISO 32000-1,
/// 7.5.2 allows bytes before it), and no image format's signature before it.
pub(super) fn is_pdf(bytes: &[u8]) -> bool {
    image::guess_format(bytes).is_err()
        && bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
}

/// A PDF file of scans, parsed: its pages in order, each decoded when asked for.
pub(super) struct ScannedPdf {
    document: Document,
    pages: Vec<ObjectId>,
}

impl ScannedPdf {
    /// Parses `bytes`; an error when they are not a PDF file that can be read or it has no
    /// page.
    pub(super) fn load(bytes: &[u8]) -> Result<ScannedPdf, String> {
        let document =
            Document::load_mem(bytes).map_err(|e| format!("not a readable PDF file: {e}"))?;
        if document.is_encrypted() {
            return Err("the PDF file is encrypted with a password".into());
        }
        let pages: Vec<ObjectId> = document.get_pages().into_values().collect();
        if pages.is_empty() {
            return Err("the PDF file has no pages".into());
        }
        Ok(ScannedPdf { document, pages })
    }

    pub(super) fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// Page `index`'s scan (from 0), or the cause it cannot be had.
    pub(super) fn page(&self, index: usize) -> Result<DynamicImage, String> {
        let page = self
            .pages
            .get(index)
            .ok_or("the PDF file has no such page")?;
        page_scan(&self.document, *page)
    }
}

/// Forms drawn inside forms are searched for images to this depth.
const MAX_FORM_DEPTH: usize = 4;

/// The largest image `page` shows, turned as the page is shown.
fn page_scan(document: &Document, page: ObjectId) -> Result<DynamicImage, String> {
    let mut images = Vec::new();
    if let Some(resources) = inherited(document, page, b"Resources").and_then(|r| r.as_dict().ok())
    {
        gather_images(document, resources, 0, &mut images);
    }
    let pixels = |image: &Stream| {
        let side = |key: &[u8]| number(document, &image.dict, key).unwrap_or(0).max(0);
        side(b"Width").saturating_mul(side(b"Height"))
    };
    let largest = images.into_iter().max_by_key(|image| pixels(image)).ok_or(
        "the page holds no scanned image (scoresheet reads scans and photos, not pages drawn \
         as text and lines)",
    )?;
    let image = decode_image(document, largest)?;
    Ok(match page_rotation(document, page) {
        90 => image.rotate90(),
        180 => image.rotate180(),
        270 => image.rotate270(),
        _ => image,
    })
}

/// The image XObjects among `resources` (a page's or a form's), and in the forms they name,
/// added to `images`.
fn gather_images<'d>(
    document: &'d Document,
    resources: &'d Dictionary,
    depth: usize,
    images: &mut Vec<&'d Stream>,
) {
    let Some(Ok(xobjects)) = resources
        .get(b"XObject")
        .ok()
        .and_then(|x| resolved(document, x))
        .map(Object::as_dict)
    else {
        return;
    };
    for (_, xobject) in xobjects.iter() {
        let Some(Ok(stream)) = resolved(document, xobject).map(Object::as_stream) else {
            continue;
        };
        match stream.dict.get(b"Subtype").and_then(Object::as_name) {
            Ok(b"Image") => images.push(stream),
            Ok(b"Form") if depth < MAX_FORM_DEPTH => {
                if let Some(Ok(inner)) = stream
                    .dict
                    .get(b"Resources")
                    .ok()
                    .and_then(|r| resolved(document, r))
                    .map(Object::as_dict)
                {
                    gather_images(document, inner, depth + 1, images);
                }
            }
            _ => {}
        }
    }
}

/// A page's attribute `key`, its own or inherited from the page tree (`Resources`, `Rotate`).
fn inherited<'d>(document: &'d Document, page: ObjectId, key: &[u8]) -> Option<&'d Object> {
    let mut node = document.get_dictionary(page).ok();
    // The page tree is shallow; the bound stops a cycle of parents.
    for _ in 0..32 {
        let dictionary = node?;
        if let Ok(value) = dictionary.get(key) {
            return resolved(document, value);
        }
        node = dictionary
            .get(b"Parent")
            .and_then(Object::as_reference)
            .and_then(|parent| document.get_dictionary(parent))
            .ok();
    }
    None
}

/// How far clockwise the page is turned when shown (`/Rotate`), in degrees: 0, 90, 180 or
/// 270.
fn page_rotation(document: &Document, page: ObjectId) -> i64 {
    inherited(document, page, b"Rotate")
        .and_then(|rotate| rotate.as_i64().ok())
        .map_or(0, |rotate| rotate.rem_euclid(360) / 90 * 90)
}

/// The pixels of an image XObject: JPEG (`DCTDecode`), CCITT Group 4 fax
/// (`CCITTFaxDecode`, `K` < 0) or samples (uncompressed, Flate, LZW, run-length) in a grey,
/// RGB, CMYK, ICC-based or indexed colour space, or an image mask.
fn decode_image(document: &Document, stream: &Stream) -> Result<DynamicImage, String> {
    let dictionary = &stream.dict;
    let side = |key: &[u8]| {
        number(document, dictionary, key)
            .filter(|&n| n > 0)
            .ok_or("the page's image has no size")
    };
    let (width, height) = (side(b"Width")?, side(b"Height")?);
    if width > MAX_SIDE as i64 || height > MAX_SIDE as i64 || width * height > MAX_PIXELS as i64 {
        return Err(format!(
            "a {width} x {height} image is too large to be a photo or scan of a sheet \
             (at most {MAX_SIDE} px a side and {} megapixels)",
            MAX_PIXELS / 1_000_000
        ));
    }
    let (width, height) = (width as u32, height as u32);
    let filters: Vec<Vec<u8>> = stream
        .filters()
        .map(|filters| filters.into_iter().map(<[u8]>::to_vec).collect())
        .unwrap_or_default();
    let codec = filters.last().filter(|f| {
        !matches!(
            f.as_slice(),
            b"FlateDecode"
                | b"LZWDecode"
                | b"RunLengthDecode"
                | b"ASCII85Decode"
                | b"ASCIIHexDecode"
        )
    });
    // Samples fill the image; a codec's data is smaller than its pixels.
    let limit = width as usize * height as usize * 8 + (1 << 20);
    let data = match codec {
        None => stream.decompressed_content_with_limit(limit),
        Some(_) => byte_filtered(stream, filters.len() - 1, limit),
    }
    .map_err(|e| format!("the page's image data cannot be decompressed: {e}"))?;
    match codec.map(Vec::as_slice) {
        None => sampled_image(document, dictionary, width, height, &data),
        Some(b"DCTDecode") => decode(&data),
        Some(b"CCITTFaxDecode") => {
            let parameters = codec_parameters(document, dictionary, filters.len() - 1);
            fax_image(parameters, dictionary, width, height, &data)
        }
        Some(b"JPXDecode") => Err(unsupported("JPEG 2000")),
        Some(b"JBIG2Decode") => Err(unsupported("JBIG2")),
        Some(other) => Err(unsupported(&String::from_utf8_lossy(other))),
    }
}

fn unsupported(codec: &str) -> String {
    format!(
        "the page's scan is a {codec} image, which scoresheet does not decode; convert the \
         PDF to an image a page (e.g. `pdftoppm -r 300 -png FILE.pdf page`)"
    )
}

/// The stream's data through its first `count` filters only (those before the image codec).
fn byte_filtered(stream: &Stream, count: usize, limit: usize) -> lopdf::Result<Vec<u8>> {
    if count == 0 {
        return Ok(stream.content.clone());
    }
    let mut bytes_only = stream.clone();
    if let Ok(Object::Array(filters)) = bytes_only.dict.get_mut(b"Filter") {
        filters.truncate(count);
    }
    if let Ok(Object::Array(parameters)) = bytes_only.dict.get_mut(b"DecodeParms") {
        parameters.truncate(count);
    }
    bytes_only.decompressed_content_with_limit(limit)
}

/// The `DecodeParms` dictionary of the stream's filter `index`, if any.
fn codec_parameters<'d>(
    document: &'d Document,
    dictionary: &'d Dictionary,
    index: usize,
) -> Option<&'d Dictionary> {
    let parameters = resolved(document, dictionary.get(b"DecodeParms").ok()?)?;
    let parameters = match parameters {
        Object::Array(each) => resolved(document, each.get(index)?)?,
        single => single,
    };
    parameters.as_dict().ok()
}

fn resolved<'d>(document: &'d Document, object: &'d Object) -> Option<&'d Object> {
    document.dereference(object).ok().map(|(_, object)| object)
}

fn number(document: &Document, dictionary: &Dictionary, key: &[u8]) -> Option<i64> {
    resolved(document, dictionary.get(key).ok()?)?.as_i64().ok()
}

fn flag(dictionary: Option<&Dictionary>, key: &[u8]) -> bool {
    dictionary
        .and_then(|d| d.get(key).ok())
        .and_then(|value| value.as_bool().ok())
        .unwrap_or(false)
}

/// Whether the image's `Decode` array swaps dark and light (`[1 0]` for a grey or mask image).
fn decode_inverted(dictionary: &Dictionary) -> bool {
    let Ok(Object::Array(range)) = dictionary.get(b"Decode") else {
        return false;
    };
    let bound = |i: usize| range.get(i).and_then(|v| v.as_float().ok());
    matches!((bound(0), bound(1)), (Some(low), Some(high)) if low > high)
}

/// A CCITT Group 4 fax image (`K` < 0), black runs black: as the PDF's `BlackIs1` and
/// `Decode` would show it when they agree, which is how every writer pairs them; when
/// they do not, the page shows white writing on black.
fn fax_image(
    parameters: Option<&Dictionary>,
    dictionary: &Dictionary,
    width: u32,
    height: u32,
    data: &[u8],
) -> Result<DynamicImage, String> {
    let parameter = |key: &[u8]| {
        parameters
            .and_then(|p| p.get(key).ok())
            .and_then(|v| v.as_i64().ok())
    };
    if parameter(b"K").unwrap_or(0) >= 0 {
        return Err(
            "the page's scan is a Group 3 fax image, which scoresheet does not decode (Group 4 \
             only); convert the PDF to an image a page (e.g. `pdftoppm -r 300 -png FILE.pdf page`)"
                .into(),
        );
    }
    // The filter's own default is 1,728 columns (a fax line); a scan's writer gives them or
    // means the image's width.
    let columns = parameter(b"Columns").unwrap_or(width as i64);
    if columns != width as i64 || width > u16::MAX as u32 || height > u16::MAX as u32 {
        return Err(format!(
            "the page's fax image is {columns} columns wide in an image {width} wide"
        ));
    }
    let light_runs_dark = flag(parameters, b"BlackIs1") != decode_inverted(dictionary);
    let (white, black) = if light_runs_dark { (0, 255) } else { (255, 0) };
    let size = width as usize * height as usize;
    let mut pixels = Vec::with_capacity(size);
    let decoded = fax::decoder::decode_g4(
        data.iter().copied(),
        width as u16,
        Some(height as u16),
        |transitions| {
            if pixels.len() < size {
                pixels.extend(fax::decoder::pels(transitions, width as u16).map(|colour| {
                    match colour {
                        fax::Color::White => white,
                        fax::Color::Black => black,
                    }
                }));
            }
        },
    );
    if decoded.is_none() && pixels.is_empty() {
        return Err("the page's fax image data is corrupt".into());
    }
    // A stream cut short is read as far as it goes, as a torn JPEG is.
    pixels.resize(size, white);
    GrayImage::from_raw(width, height, pixels)
        .map(DynamicImage::ImageLuma8)
        .ok_or_else(|| "the page's fax image has no pixels".into())
}

/// A colour space of sampled image data.
enum ColourSpace {
    Grey,
    Rgb,
    Cmyk,
    /// Each sample indexes `palette`, colours of `base` (at most 256).
    Indexed {
        base: Box<ColourSpace>,
        palette: Vec<u8>,
    },
}

impl ColourSpace {
    fn components(&self) -> usize {
        match self {
            ColourSpace::Grey | ColourSpace::Indexed { .. } => 1,
            ColourSpace::Rgb => 3,
            ColourSpace::Cmyk => 4,
        }
    }

    fn of(document: &Document, object: &Object) -> Result<ColourSpace, String> {
        let object = resolved(document, object).ok_or("the image's colour space is missing")?;
        let name = |o: &Object| o.as_name().map(<[u8]>::to_vec).unwrap_or_default();
        let (family, rest): (Vec<u8>, &[Object]) = match object {
            Object::Name(family) => (family.clone(), &[]),
            Object::Array(items) if !items.is_empty() => (name(&items[0]), &items[1..]),
            _ => return Err("the image's colour space is not one PDF defines".into()),
        };
        match family.as_slice() {
            b"DeviceGray" | b"CalGray" | b"G" => Ok(ColourSpace::Grey),
            b"DeviceRGB" | b"CalRGB" | b"RGB" => Ok(ColourSpace::Rgb),
            b"DeviceCMYK" | b"CMYK" => Ok(ColourSpace::Cmyk),
            b"ICCBased" => {
                let profile = rest
                    .first()
                    .and_then(|p| resolved(document, p))
                    .and_then(|p| p.as_stream().ok())
                    .ok_or("the image's ICC profile is missing")?;
                match number(document, &profile.dict, b"N") {
                    Some(1) => Ok(ColourSpace::Grey),
                    Some(3) => Ok(ColourSpace::Rgb),
                    Some(4) => Ok(ColourSpace::Cmyk),
                    _ => Err("the image's ICC profile has an unknown number of colours".into()),
                }
            }
            b"Indexed" | b"I" => {
                let [base, _highest, lookup] = rest else {
                    return Err("the image's indexed colour space is incomplete".into());
                };
                let base = ColourSpace::of(document, base)?;
                let lookup = resolved(document, lookup).ok_or("the image's palette is missing")?;
                let palette = match lookup {
                    Object::String(bytes, _) => bytes.clone(),
                    Object::Stream(stream) => stream
                        .decompressed_content_with_limit(256 * 4)
                        .map_err(|e| format!("the image's palette cannot be read: {e}"))?,
                    _ => return Err("the image's palette is not a string".into()),
                };
                if matches!(base, ColourSpace::Indexed { .. }) {
                    return Err("the image's palette indexes another palette".into());
                }
                Ok(ColourSpace::Indexed {
                    base: Box::new(base),
                    palette,
                })
            }
            other => Err(format!(
                "the image's colour space {} is not one scoresheet reads",
                String::from_utf8_lossy(other)
            )),
        }
    }

    /// The RGB colour of one pixel's components, each scaled to 0–255.
    fn rgb(&self, components: &[u8]) -> [u8; 3] {
        match self {
            ColourSpace::Grey => [components[0]; 3],
            ColourSpace::Rgb => [components[0], components[1], components[2]],
            ColourSpace::Cmyk => {
                let ink = |c: u8| (255 - c as u32) * (255 - components[3] as u32) / 255;
                [
                    ink(components[0]) as u8,
                    ink(components[1]) as u8,
                    ink(components[2]) as u8,
                ]
            }
            ColourSpace::Indexed { base, palette } => {
                let size = base.components();
                let start = components[0] as usize * size;
                match palette.get(start..start + size) {
                    Some(entry) => base.rgb(entry),
                    None => [0; 3],
                }
            }
        }
    }
}

/// An image of samples (`BitsPerComponent` 1, 2, 4, 8 or 16, rows padded to whole bytes).
fn sampled_image(
    document: &Document,
    dictionary: &Dictionary,
    width: u32,
    height: u32,
    data: &[u8],
) -> Result<DynamicImage, String> {
    let mask = flag(Some(dictionary), b"ImageMask");
    let space = match dictionary.get(b"ColorSpace") {
        Ok(space) if !mask => ColourSpace::of(document, space)?,
        _ if mask => ColourSpace::Grey,
        _ => return Err("the page's image has no colour space".into()),
    };
    let bits = if mask {
        1
    } else {
        number(document, dictionary, b"BitsPerComponent").unwrap_or(8)
    };
    if ![1, 2, 4, 8, 16].contains(&bits) {
        return Err(format!("the page's image has {bits} bits a sample"));
    }
    let bits = bits as usize;
    let components = space.components();
    let row_bytes = (width as usize * components * bits).div_ceil(8);
    if data.len() < row_bytes * height as usize {
        return Err(format!(
            "the page's image data is cut short ({} bytes of {})",
            data.len(),
            row_bytes * height as usize
        ));
    }
    let highest = (1u32 << bits.min(8)) - 1;
    let indexed = matches!(space, ColourSpace::Indexed { .. });
    let inverted = !indexed && decode_inverted(dictionary);
    // A sample at bit `offset` of its row, scaled to 0–255 (16-bit samples: the high byte);
    // a palette index is kept as it is.
    let sample = |row: &[u8], index: usize| -> u8 {
        let value = match bits {
            16 => row[index * 2] as u32,
            8 => row[index] as u32,
            _ => {
                let offset = index * bits;
                (row[offset / 8] as u32 >> (8 - bits - offset % 8)) & highest
            }
        };
        let value = if indexed {
            value
        } else {
            value * 255 / highest
        };
        if inverted {
            255 - value as u8
        } else {
            value as u8
        }
    };
    let rows = data.chunks(row_bytes).take(height as usize);
    if let ColourSpace::Grey = space {
        let mut grey = Vec::with_capacity(width as usize * height as usize);
        for row in rows {
            grey.extend((0..width as usize).map(|x| sample(row, x)));
        }
        return GrayImage::from_raw(width, height, grey)
            .map(DynamicImage::ImageLuma8)
            .ok_or_else(|| "the page's image has no pixels".into());
    }
    let mut rgb = Vec::with_capacity(width as usize * height as usize * 3);
    let mut pixel = [0u8; 4];
    for row in rows {
        for x in 0..width as usize {
            for (c, value) in pixel.iter_mut().take(components).enumerate() {
                *value = sample(row, x * components + c);
            }
            rgb.extend(space.rgb(&pixel[..components]));
        }
    }
    RgbImage::from_raw(width, height, rgb)
        .map(DynamicImage::ImageRgb8)
        .ok_or_else(|| "the page's image has no pixels".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::ImageEncoder;
    use lopdf::dictionary;

    /// A PDF file of pages, each showing the image `(dictionary, data)` or nothing; every page
    /// turned `rotate` degrees when shown.
    fn pdf(pages: Vec<Option<(Dictionary, Vec<u8>)>>, rotate: i64) -> Vec<u8> {
        pdf_drawn(pages, rotate, false)
    }

    /// As [`pdf`], each image drawn through a form XObject when `in_form`, as some PDF
    /// writers place a scan.
    fn pdf_drawn(pages: Vec<Option<(Dictionary, Vec<u8>)>>, rotate: i64, in_form: bool) -> Vec<u8> {
        let mut document = Document::with_version("1.5");
        let tree = document.new_object_id();
        let mut kids = Vec::new();
        for page in pages {
            let mut resources = Dictionary::new();
            if let Some((image, data)) = page {
                let mut image = document.add_object(Stream::new(image, data));
                if in_form {
                    let form = dictionary! {
                        "Type" => "XObject", "Subtype" => "Form",
                        "BBox" => vec![0.into(), 0.into(), 1.into(), 1.into()],
                        "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image } },
                    };
                    image = document.add_object(Stream::new(form, b"/Im1 Do".to_vec()));
                }
                resources.set("XObject", dictionary! { "Im0" => image });
            }
            let drawing = b"q 100 0 0 100 0 0 cm /Im0 Do Q".to_vec();
            let contents = document.add_object(Stream::new(dictionary! {}, drawing));
            let page = document.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => tree,
                "Contents" => contents,
                "Resources" => resources,
                "MediaBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            });
            kids.push(Object::Reference(page));
        }
        let count = kids.len() as i64;
        document.objects.insert(
            tree,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => count, "Rotate" => rotate,
            }),
        );
        let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
        document.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        document.save_to(&mut bytes).unwrap();
        bytes
    }

    /// An image XObject's dictionary: its size, colour space, bits and filter.
    fn image_dictionary(
        width: u32,
        height: u32,
        space: Object,
        bits: i64,
        filter: Option<&str>,
    ) -> Dictionary {
        let mut image = dictionary! {
            "Type" => "XObject", "Subtype" => "Image",
            "Width" => width as i64, "Height" => height as i64,
            "ColorSpace" => space, "BitsPerComponent" => bits,
        };
        if let Some(filter) = filter {
            image.set("Filter", Object::Name(filter.as_bytes().to_vec()));
        }
        image
    }

    fn jpeg(width: u32, height: u32) -> Vec<u8> {
        let picture =
            image::GrayImage::from_fn(width, height, |x, _| image::Luma([(x * 20) as u8]));
        let mut bytes = Vec::new();
        image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 95)
            .write_image(
                picture.as_raw(),
                width,
                height,
                image::ExtendedColorType::L8,
            )
            .unwrap();
        bytes
    }

    fn pages(bytes: &[u8]) -> Vec<Result<DynamicImage, String>> {
        let file = ScannedPdf::load(bytes).unwrap();
        (0..file.page_count()).map(|page| file.page(page)).collect()
    }

    #[test]
    fn reads_each_page_s_scan_turned_as_the_page_is_shown() {
        let grey = Object::Name(b"DeviceGray".to_vec());
        let jpeg_page = (
            image_dictionary(12, 5, grey.clone(), 8, Some("DCTDecode")),
            jpeg(12, 5),
        );
        let samples: Vec<u8> = (0..8 * 3).map(|i| i as u8 * 10).collect();
        let sampled = (image_dictionary(8, 3, grey, 8, None), samples.clone());
        let file = pdf(vec![Some(jpeg_page.clone()), Some(sampled.clone())], 0);
        assert!(is_pdf(&file));
        let read = pages(&file);
        let first = read[0].as_ref().unwrap();
        assert_eq!((first.width(), first.height()), (12, 5));
        assert!(first.to_luma8()[(11, 2)].0[0] > 180, "the JPEG's gradient");
        assert_eq!(read[1].as_ref().unwrap().to_luma8().into_raw(), samples);
        // The page tree turns every page a quarter clockwise.
        let turned = pages(&pdf(vec![Some(jpeg_page), Some(sampled.clone())], 90));
        let first = turned[0].as_ref().unwrap();
        assert_eq!((first.width(), first.height()), (5, 12));
        let second = turned[1].as_ref().unwrap().to_luma8();
        // The sample at the image's bottom-left corner is at the top-left when turned.
        assert_eq!(second[(0, 0)].0[0], samples[2 * 8]);
        // A scan drawn through a form.
        let file = pdf_drawn(vec![Some(sampled)], 0, true);
        assert_eq!(
            pages(&file)[0].as_ref().unwrap().to_luma8().into_raw(),
            samples
        );
    }

    #[test]
    fn decodes_samples_in_every_colour_space_a_scanner_writes() {
        let document = Document::with_version("1.5");
        let read = |space: Object, bits: i64, data: &[u8], extra: Option<(&str, Object)>| {
            let mut image = image_dictionary(2, 1, space, bits, None);
            if let Some((key, value)) = extra {
                image.set(key, value);
            }
            sampled_image(&document, &image, 2, 1, data).map(|i| i.to_rgb8().into_raw())
        };
        let name = |n: &str| Object::Name(n.as_bytes().to_vec());
        assert_eq!(
            read(name("DeviceRGB"), 8, &[1, 2, 3, 4, 5, 6], None).unwrap(),
            [1, 2, 3, 4, 5, 6]
        );
        // Two one-bit samples, black then white, and the same with Decode [1 0].
        assert_eq!(
            read(name("DeviceGray"), 1, &[0b0100_0000], None).unwrap(),
            [0, 0, 0, 255, 255, 255]
        );
        let swapped = Some(("Decode", vec![1.into(), 0.into()].into()));
        assert_eq!(
            read(name("DeviceGray"), 1, &[0b0100_0000], swapped).unwrap(),
            [255, 255, 255, 0, 0, 0]
        );
        // An image mask paints its 0 samples: the writing on the paper.
        let mask = Some(("ImageMask", Object::Boolean(true)));
        assert_eq!(
            read(Object::Null, 1, &[0b0100_0000], mask).unwrap(),
            [0, 0, 0, 255, 255, 255]
        );
        assert_eq!(
            read(name("DeviceGray"), 4, &[0xF0], None).unwrap(),
            [255, 255, 255, 0, 0, 0]
        );
        assert_eq!(
            read(name("DeviceGray"), 16, &[200, 1, 100, 2], None).unwrap(),
            [200, 200, 200, 100, 100, 100]
        );
        assert_eq!(
            read(name("DeviceCMYK"), 8, &[0, 0, 0, 0, 255, 0, 0, 0], None).unwrap(),
            [255, 255, 255, 0, 255, 255]
        );
        let palette = Object::String(
            vec![10, 20, 30, 40, 50, 60],
            lopdf::StringFormat::Hexadecimal,
        );
        let indexed = Object::Array(vec![name("Indexed"), name("DeviceRGB"), 1.into(), palette]);
        assert_eq!(
            read(indexed, 8, &[1, 0], None).unwrap(),
            [40, 50, 60, 10, 20, 30]
        );
        let short = read(name("DeviceRGB"), 8, &[1, 2, 3], None).unwrap_err();
        assert!(short.contains("cut short"), "{short}");
        let unknown = read(name("Separation"), 8, &[1, 2], None).unwrap_err();
        assert!(unknown.contains("Separation"), "{unknown}");
    }

    #[test]
    fn decodes_a_group_4_fax_scan_black_on_white() {
        let (width, height) = (40u16, 6u16);
        let ink = |x: u16, y: u16| (10..20).contains(&x) && y >= 2;
        let mut encoder = fax::encoder::Encoder::new(fax::VecWriter::new());
        for y in 0..height {
            let line = (0..width).map(|x| {
                if ink(x, y) {
                    fax::Color::Black
                } else {
                    fax::Color::White
                }
            });
            encoder.encode_line(line, width).unwrap();
        }
        let data = encoder.finish().unwrap().finish();
        let fax_page = |black_is_1: bool, decode: Option<Object>| {
            let mut image = image_dictionary(
                40,
                6,
                Object::Name(b"DeviceGray".to_vec()),
                1,
                Some("CCITTFaxDecode"),
            );
            image.set(
                "DecodeParms",
                dictionary! {
                    "K" => -1, "Columns" => 40, "Rows" => 6, "BlackIs1" => black_is_1,
                },
            );
            if let Some(decode) = decode {
                image.set("Decode", decode);
            }
            Some((image, data.clone()))
        };
        let inverse = Some(Object::Array(vec![1.into(), 0.into()]));
        let file = pdf(vec![fax_page(false, None), fax_page(true, inverse)], 0);
        for page in pages(&file) {
            let grey = page.unwrap().to_luma8();
            for (x, y, pixel) in grey.enumerate_pixels() {
                let expected = if ink(x as u16, y as u16) { 0 } else { 255 };
                assert_eq!(pixel.0[0], expected, "({x}, {y})");
            }
        }
        let mut g3 = fax_page(false, None).unwrap();
        g3.0.set("DecodeParms", dictionary! { "K" => 0, "Columns" => 40 });
        let refused = pages(&pdf(vec![Some(g3)], 0)).remove(0).unwrap_err();
        assert!(refused.contains("Group 3"), "{refused}");
    }

    #[test]
    fn refuses_what_holds_no_scan_naming_the_cause() {
        let grey = Object::Name(b"DeviceGray".to_vec());
        let jpx = (
            image_dictionary(8, 8, grey.clone(), 8, Some("JPXDecode")),
            vec![0; 16],
        );
        let read = pages(&pdf(vec![None, Some(jpx)], 0));
        assert!(read[0].as_ref().unwrap_err().contains("no scanned image"));
        assert!(read[1].as_ref().unwrap_err().contains("JPEG 2000"));
        let huge = (
            image_dictionary(30_000, 8, grey.clone(), 8, None),
            vec![0; 16],
        );
        let refused = pages(&pdf(vec![Some(huge)], 0)).remove(0).unwrap_err();
        assert!(refused.contains("too large"), "{refused}");
        assert!(ScannedPdf::load(b"%PDF-1.4\nnothing else").is_err());
        assert!(ScannedPdf::load(b"%PDF-1.4\n").is_err());
        assert!(!is_pdf(b"\x89PNG\r\n\x1a\n"));
    }
}
