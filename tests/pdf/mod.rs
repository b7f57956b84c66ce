//! PDF files of scans for the tests, as scanners write them: a page tree, each page showing
//! one image XObject (or none).

// Each test crate includes this module and uses only some of it.
#![allow(dead_code)]

use lopdf::{dictionary, Document, Object, Stream};

/// An image XObject `width` x `height` in the colour space `space` (8 bits a sample), its
/// data `data` as encoded by `filter` (`None`: samples, compressed here with Flate).
pub fn image(width: u32, height: u32, space: &str, filter: Option<&str>, data: Vec<u8>) -> Stream {
    let dictionary = dictionary! {
        "Type" => "XObject", "Subtype" => "Image",
        "Width" => width as i64, "Height" => height as i64,
        "ColorSpace" => Object::Name(space.as_bytes().to_vec()), "BitsPerComponent" => 8,
    };
    let mut image = Stream::new(dictionary, data);
    match filter {
        Some(filter) => image
            .dict
            .set("Filter", Object::Name(filter.as_bytes().to_vec())),
        None => image.compress().expect("Flate compression"),
    }
    image
}

/// A PDF file of A4 pages, each showing its image over the whole page, or nothing.
pub fn pdf_of(pages: Vec<Option<Stream>>) -> Vec<u8> {
    let mut document = Document::with_version("1.5");
    let tree = document.new_object_id();
    let mut kids = Vec::new();
    for page in pages {
        let mut resources = lopdf::Dictionary::new();
        if let Some(image) = page {
            let image = document.add_object(image);
            resources.set("XObject", dictionary! { "Im0" => image });
        }
        let drawing = b"q 595 0 0 842 0 0 cm /Im0 Do Q".to_vec();
        let contents = document.add_object(Stream::new(dictionary! {}, drawing));
        let page = document.add_object(dictionary! {
            "Type" => "Page", "Parent" => tree, "Contents" => contents,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        kids.push(Object::Reference(page));
    }
    let count = kids.len() as i64;
    document.objects.insert(
        tree,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => tree });
    document.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).expect("a PDF file in memory");
    bytes
}
