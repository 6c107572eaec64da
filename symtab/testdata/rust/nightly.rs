// Constants LLVM 14 cannot demangle (rustc's adt_const_params: str,
// references, arrays, tuples, structs as const generic arguments), so
// llvm-cxxfilt-14 prints these names raw. Needs a nightly rustc; built by
// gen.sh when one is installed.
#![feature(adt_const_params, unsized_const_params)]
#![allow(incomplete_features)]
use std::hint::black_box;
use std::marker::ConstParamTy;

#[derive(PartialEq, Eq, ConstParamTy)]
pub struct Point {
    pub x: i32,
    pub y: u8,
}

#[derive(PartialEq, Eq, ConstParamTy)]
pub enum Mode {
    Off,
    On(u8),
    Named { level: i16 },
}

#[inline(never)]
pub fn by_str<const S: &'static str>() -> usize {
    black_box(S.len())
}

#[inline(never)]
pub fn by_point<const P: Point>() -> i32 {
    black_box(P.x)
}

#[inline(never)]
pub fn by_mode<const M: Mode>() -> u8 {
    black_box(match M {
        Mode::Off => 0,
        Mode::On(v) => v,
        Mode::Named { .. } => 2,
    })
}

#[inline(never)]
pub fn by_tuple<const T: (u8, bool, char)>() -> u8 {
    black_box(T.0)
}

#[inline(never)]
pub fn by_array<const A: [u16; 3]>() -> u16 {
    black_box(A[1])
}

#[inline(never)]
pub fn by_ref<const R: &'static [u8]>() -> usize {
    black_box(R.len())
}

#[inline(never)]
pub fn plain<const N: u32>() -> u32 {
    black_box(N)
}

fn main() {
    let mut t = by_str::<"hello">() + by_str::<"ünï\"'\n">();
    t += by_point::<{ Point { x: -3, y: 4 } }>() as usize;
    t += by_mode::<{ Mode::Off }>() as usize + by_mode::<{ Mode::On(5) }>() as usize;
    t += by_mode::<{ Mode::Named { level: -1 } }>() as usize;
    t += by_tuple::<{ (1, true, 'x') }>() as usize + by_array::<{ [1, 2, 3] }>() as usize;
    t += by_ref::<b"ab">() + plain::<7>() as usize;
    black_box(t);
}
